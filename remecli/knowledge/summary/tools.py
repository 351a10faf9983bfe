"""The summarizer's file tools: read / write / edit, confined by a scope to some memory files.

The default scope (`MemoryScope`) allows `MEMORY.md` and `memory/**/*.md` under the working dir;
any other path is refused with an error the model can act on. A scope also checks every change
before it is written (`prepare`): a `write` that would drop lines of an existing file is
refused ("use edit"). Every read and write goes through the file service over the writer given.

Never clobbering the user: `write` on an existing file is refused unless the file still holds
what this run last read or wrote (otherwise: "read it again and merge"), and `edit` replaces one
unique piece of the file as it is now (exact, then whitespace/quote-tolerant match), so a line the
user changed meanwhile makes the match fail and the model is told to re-read and retry. The file
is re-checked right before the atomic replace, leaving only a microseconds-wide race.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable
from pathlib import Path

from remecli.knowledge.cards.rules import write_drop_problem
from remecli.knowledge.write import write_memory_file
from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import ToolArgumentError, as_int, as_text, error, ok
from remecli.llm.tool_spec import ToolSpec
from remecli.notes.file_service import FileService
from remecli.notes.layout import WorkingDir
from remecli.notes.matching import EditRefused, apply_edit
from remecli.notes.writer import MEMORY_MD, MemoryWriter

READ_MAX_LINES = 2_000
CHANGED_HINT = (
    "If the file changed since you read it (the user may have edited it), read it again with "
    "`read` and redo your change on the fresh content; never drop the user's lines."
)


def daily_header(date: dt.date) -> str:
    """First line of a daily memory file."""
    return f"# {date:%Y-%m-%d}"


class ChangeRefused(ValueError):
    """A change a scope refuses; the message tells the model what to do instead."""


class MemoryScope:
    """Which files the tools may read and change, and what a change must respect.

    This default scope is the daily log of the older layout: `MEMORY.md` and `memory/**/*.md`;
    the day's file keeps its `# YYYY-MM-DD` header; `write` never drops existing lines.
    """

    reason = "summarizer"

    def __init__(self, working_dir: WorkingDir, date: dt.date) -> None:
        self.working_dir = working_dir
        self.date = date
        self.daily_file = working_dir.daily_file(date)

    def relative(self, path: Path) -> str:
        """`path` as shown to the model: relative to the working dir."""
        return path.relative_to(self.working_dir.root).as_posix()

    def readable(self, note: str) -> bool:
        """True when the memory note `note` (relative, as `FileService.memory_note` names it)
        may be read: MEMORY.md and memory/**/*.md."""
        return note == MEMORY_MD or note.startswith("memory/")

    def writable(self, target: Path) -> str | None:
        """None when `target` (a readable note, resolved) may be changed, else why not."""
        return None

    def allowed(self) -> str:
        """What the tools may touch, said to the model after a refusal."""
        return (
            "Only the memory files can be used: MEMORY.md and memory/**/*.md under the "
            f"working dir (today's file is {self.relative(self.daily_file)})."
        )

    def missing_hint(self, target: Path) -> str:
        """Extra words after "<file> does not exist yet."."""
        if target == self.daily_file:
            return f" Create it with `write`, starting with the line `{daily_header(self.date)}`."
        return ""

    def prepare(self, target: Path, old: str | None, new: str, tool: str) -> str:
        """The text to write for this change; raises ChangeRefused."""
        if target == self.daily_file:
            new = _with_header(new, self.date)
        if tool == "write" and old is not None:
            problem = write_drop_problem(self.relative(target), old, new)
            if problem:
                raise ChangeRefused(problem)
        return new

    def committed(self, target: Path) -> None:
        """Called after a change of `target` was written."""


class MemoryFileTools:
    """read / write / edit over the files a scope allows, for one summarizer or dream run.

    `written` lists the files this run changed (relative paths), in order.
    """

    def __init__(
        self,
        working_dir: WorkingDir,
        date: dt.date,
        scope: MemoryScope | None = None,
        *,
        writer: MemoryWriter,
    ) -> None:
        self.working_dir = working_dir
        self.writer = writer  # the composition root's one writer (versions, redaction)
        self.files = FileService(writer)
        self.date = date
        self.scope = scope or MemoryScope(working_dir, date)
        self.daily_file = working_dir.daily_file(date)
        self.written: list[str] = []
        self.refused: list[str] = []  # each refused write/edit, with the error the model got
        self._known: dict[Path, str | None] = {}  # what this run last saw in each file

    # ----------------------------------------------------------------- paths
    def relative(self, path: Path) -> str:
        """`path` as shown to the model: relative to the working dir."""
        return path.relative_to(self.working_dir.root).as_posix()

    def known_text(self, path: str) -> str | None:
        """The text this run last read of `path` (relative), None when unread or absent."""
        return self._known.get((self.working_dir.root / path).resolve())

    def resolve(self, raw: str, *, for_change: bool = False) -> Path:
        """The memory file `raw` names, or ToolArgumentError saying what is allowed."""
        text = raw.strip()
        if not text:
            raise ToolArgumentError("`path` is empty. " + self.scope.allowed())
        root = self.working_dir.root
        candidate = Path(text).expanduser()
        if not candidate.is_absolute():
            candidate = root / candidate
        target = candidate.resolve()  # follows symlinks: a link out of the folder is refused
        note = self.files.memory_note(target)  # the one rule of what a memory note is
        if note is None or not self.scope.readable(note):
            raise ToolArgumentError(f"Access to {text!r} is refused. " + self.scope.allowed())
        if for_change:
            problem = self.scope.writable(target)
            if problem:
                raise ToolArgumentError(f"Changing {text!r} is refused. {problem}")
        return target

    # ----------------------------------------------------------------- tools
    async def read(
        self, path: str, offset: int | None = None, limit: int | None = None
    ) -> ToolOutput:
        """Read a memory file (MEMORY.md or memory/*.md) as plain text, without line numbers.

        Args:
            path: The file, relative to the working dir, e.g. "memory/2025-01-31.md".
            offset: The 1-based line to start from (default 1).
            limit: The most lines to return (default 2000).
        """
        try:
            target = self.resolve(as_text(path, "path"))
            start = 1 if offset is None else max(as_int(offset, "offset", minimum=0), 1)
            count = READ_MAX_LINES if limit is None else as_int(limit, "limit", minimum=1)
        except ToolArgumentError as exc:
            return error(str(exc))
        return await asyncio.to_thread(self._guarded, self._read, target, start, count)

    async def write(self, path: str, content: str) -> ToolOutput:
        """Create a memory file, or replace one you have read in this session (whole content).

        To change part of an existing file, prefer `edit`.

        Args:
            path: The file, relative to the working dir, e.g. "memory/2025-01-31.md".
            content: The complete new content of the file.
        """
        try:
            target = self.resolve(as_text(path, "path"), for_change=True)
            text = as_text(content, "content")
        except ToolArgumentError as exc:
            return self._noted("write", path, error(str(exc)))
        result = await asyncio.to_thread(self._guarded, self._write, target, text)
        return self._noted("write", path, result)

    async def edit(self, path: str, old_text: str, new_text: str) -> ToolOutput:
        """Replace `old_text` with `new_text` in a memory file; `old_text` must occur once.

        Copy `old_text` exactly from what `read` returned, with enough lines to be unique.
        To add lines, include the line they follow in `old_text` and repeat it in `new_text`.

        Args:
            path: The file, relative to the working dir, e.g. "memory/2025-01-31.md".
            old_text: The exact text to replace.
            new_text: The text to put in its place.
        """
        try:
            target = self.resolve(as_text(path, "path"), for_change=True)
            old = as_text(old_text, "old_text")
            new = as_text(new_text, "new_text")
        except ToolArgumentError as exc:
            return self._noted("edit", path, error(str(exc)))
        if not old:
            return self._noted(
                "edit", path, error("`old_text` is empty. To create a file, use `write`.")
            )
        result = await asyncio.to_thread(self._guarded, self._edit, target, old, new)
        return self._noted("edit", path, result)

    def _noted(self, tool: str, path: object, result: ToolOutput) -> ToolOutput:
        """`result`, a refused change noted in `refused` (a failed summary names the cause)."""
        if result.is_error:
            said = " ".join(result.text.split())
            self.refused.append(
                f"`{tool}` of {path} was refused ({said.removeprefix('Refused: ')})"
            )
        return result

    def function_tools(self) -> list[ToolSpec]:
        """The three tools, allowed without asking (they can only touch memory files)."""
        allow = "memory files only"
        return [
            ToolSpec.from_function(self.read, name="read", read_only=True, allowed=allow),
            ToolSpec.from_function(self.write, name="write", concurrency_safe=False, allowed=allow),
            ToolSpec.from_function(self.edit, name="edit", concurrency_safe=False, allowed=allow),
        ]

    # -------------------------------------------------------------- workers
    def _guarded(
        self, worker: Callable[..., ToolOutput], target: Path, *args: object
    ) -> ToolOutput:
        """Run a worker; an unreadable or undecodable file becomes an error for the model."""
        try:
            return worker(target, *args)
        except UnicodeError:
            return error(f"{self.relative(target)} is not UTF-8 text; it is left untouched.")
        except OSError as exc:
            return error(f"Cannot access {self.relative(target)}: {exc.strerror or exc}.")

    def _current(self, target: Path) -> str | None:
        """The file's text now, None when absent."""
        return self.files.read_text(target)

    def _read(self, target: Path, start: int, count: int) -> ToolOutput:
        name = self.relative(target)
        if target.is_dir():
            return error(f"{name} is a folder, not a file.")
        text = self._current(target)
        self._known[target] = text
        if text is None:
            return ok(f"{name} does not exist yet.{self.scope.missing_hint(target)}")
        if not text:
            return ok(f"{name} is empty.")
        page = self.files.page_text(target, text, start, count)
        end, total = page.last_line, page.total_lines
        if page.past_end:
            return error(f"{name} has only {total} lines; `offset` {start} is past the end.")
        if start == 1 and not page.truncated:
            return ok(page.text)
        more = f" Continue with offset={end + 1}." if page.truncated else ""
        return ok(f"[{name}: lines {start}-{end} of {total}.{more}]\n" + page.text)

    def _write(self, target: Path, text: str) -> ToolOutput:
        name = self.relative(target)
        current = self._current(target)
        if current is not None:
            if target not in self._known:
                return error(f"{name} exists: read it first, then merge with `edit` or `write`.")
            if current != self._known[target]:
                return error(CHANGED_HINT)
        try:
            text = self.scope.prepare(target, current, text, "write")
        except ChangeRefused as exc:
            return error(str(exc))
        if current is not None and current == text:
            return ok(f"{name} already holds this content: nothing to change.")
        return self._commit(target, current, text, f"Wrote {name} ({_line_change(current, text)}).")

    def _edit(self, target: Path, old: str, new: str) -> ToolOutput:
        name = self.relative(target)
        content = self._current(target)
        if content is None:
            return error(f"{name} does not exist. To create it, use `write`.")
        if target not in self._known:
            return error(f"Read {name} first, then edit it.")
        try:
            done = apply_edit(content, old, new, whole_lines=True)
        except EditRefused as refused:
            return error(_refusal_message(refused, name))
        updated = done.content
        try:
            updated = self.scope.prepare(target, content, updated, "edit")
        except ChangeRefused as exc:
            return error(str(exc))
        where = f"at line {done.line}; {_line_change(content, updated)}"
        return self._commit(target, content, updated, f"Edited {name} {where}.")

    def _commit(self, target: Path, expected: str | None, text: str, message: str) -> ToolOutput:
        """Write `text` if the file still holds `expected` (None = still absent)."""
        if self._current(target) != expected:
            return error(CHANGED_HINT)
        write_memory_file(self.writer, target, text, self.scope.reason, base=expected)
        self._known[target] = text
        name = self.relative(target)
        if name not in self.written:
            self.written.append(name)
        self.scope.committed(target)
        return ok(message, path=name)


def _with_header(text: str, date: dt.date) -> str:
    """Today's file always starts with its `# YYYY-MM-DD` header."""
    header = daily_header(date)
    if text.lstrip().startswith(header):
        return text
    return f"{header}\n\n{text.lstrip()}"


def _line_change(old: str | None, new: str) -> str:
    """What a change did to the line count, said truthfully: "12 lines, was 10"."""
    now = len(new.splitlines())
    if old is None:
        return f"new file, {now} lines"
    return f"{now} lines, was {len(old.splitlines())}"


def _refusal_message(refused: EditRefused, name: str) -> str:
    """What the model is told when `apply_edit` refuses (whole lines only: see `_edit`)."""
    if refused.reason == "not_found":
        return f"`old_text` was not found in {name}. {CHANGED_HINT}"
    if refused.reason == "partial_line":  # e.g. the user extended the line: never splice into it
        return (
            f"`old_text` matches only part of a line in {name}: copy whole lines from what "
            "`read` returned (to add lines, include the line they follow). " + CHANGED_HINT
        )
    if refused.reason == "ambiguous":
        lines = ", ".join(str(line) for line in refused.lines[:20])
        return (
            f"`old_text` matches {len(refused.lines)} times in {name} (lines {lines}). "
            "Include more surrounding lines so it matches exactly once."
        )
    return "`new_text` is the same as the text it replaces: nothing to change."
