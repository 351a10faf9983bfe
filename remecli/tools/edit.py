"""The `edit` tool: replace one unique piece of a text file, keeping its BOM and line ends."""

from __future__ import annotations

import asyncio
import difflib
from dataclasses import dataclass
from pathlib import Path

from remecli.llm.runtime.tooling import ToolChunk
from remecli.llm.tool_results import ToolArgumentError, as_text, error, ok
from remecli.notes.atomic_write import OpenedFile, atomic_write_bytes, opened_for_replace
from remecli.notes.matching import EditRefused, apply_edit, closest_line
from remecli.notes.writer import ChangedMeanwhile, MemoryWriteError, MemoryWriter
from remecli.tools._files import UTF8_BOM, human_size, looks_binary
from remecli.tools.checkpoints import Checkpoints
from remecli.tools.context import ToolContext

MAX_DIFF_LINES = 80


async def edit(ctx: ToolContext, path: str, old_text: str, new_text: str) -> ToolChunk:
    """Replace `old_text` with `new_text` in a file; `old_text` must occur exactly once.

    Copy `old_text` from the file with enough surrounding lines to be unique (without the line
    numbers `read` shows). Returns a unified diff of the change. To create a file use `write`.

    Args:
        path: The file to edit, relative to the workspace or absolute.
        old_text: The exact text to replace.
        new_text: The text to put in its place.
    """
    try:
        target = ctx.resolve(as_text(path, "path"))
        old = as_text(old_text, "old_text")
        new = as_text(new_text, "new_text")
    except ToolArgumentError as exc:
        return error(str(exc))
    if not old:
        return error("`old_text` is empty. To create or overwrite a whole file, use `write`.")
    writer = ctx.writer
    memory = writer if writer.is_memory_file(target) else None
    limit = ctx.settings.edit_max_bytes
    too_big = _over_limit(target, limit)  # before the checkpoint copies or hashes the file
    if too_big:
        return error(too_big)
    if memory is not None or ctx.checkpoints is None:
        return await asyncio.to_thread(_edit, target, old, new, limit, memory)
    return await asyncio.to_thread(_checkpointed_edit, ctx.checkpoints, target, old, new, limit)


def _checkpointed_edit(
    checkpoints: Checkpoints, target: Path, old: str, new: str, max_bytes: int
) -> ToolChunk:
    with checkpoints.changing(target, "edit"):  # kept before, for /diff and /undo
        return _edit(target, old, new, max_bytes)


@dataclass
class _TextFile:
    """A decoded text file and how to encode it back byte-for-byte."""

    text: str  # line ends normalised to \n when the file uses CRLF throughout
    bom: bool
    crlf: bool

    @classmethod
    def decode(cls, data: bytes) -> _TextFile:
        bom = data.startswith(UTF8_BOM)
        if bom:
            data = data[len(UTF8_BOM) :]
        text = data.decode("utf-8", errors="surrogateescape")  # undecodable bytes round-trip
        crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
        return cls(text.replace("\r\n", "\n") if crlf else text, bom, crlf)

    def encode(self, text: str) -> bytes:
        if self.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        data = text.encode("utf-8", errors="surrogateescape")
        return UTF8_BOM + data if self.bom else data


def _edit(
    target: Path, old: str, new: str, max_bytes: int, memory: MemoryWriter | None = None
) -> ToolChunk:
    """Read, change, and replace the file, re-checking it first (compare-and-swap, retried).

    The file is kept open while the change is made: what another process appends to it
    meanwhile (an editor, a logger) is kept at the end of the new file (`opened_for_replace`,
    the memory writer does the same), and a file replaced or shortened meanwhile is read again.
    No line is lost. Memory files go through the memory writer (versioned, redacted).
    """
    if not target.exists():
        return error(f"File not found: {target}. To create it, use `write`.")
    if not target.is_file():
        return error(f"{target} is not a regular file (a folder or a device).")
    for _ in range(_CAS_ATTEMPTS):
        try:
            with opened_for_replace(target, max_bytes) as opened:
                outcome = _edit_opened(target, opened, old, new, max_bytes, memory)
        except OSError as exc:
            return error(f"Cannot edit {target}: {exc.strerror or exc}.")
        if outcome is not None:
            return outcome
    return error(
        f"{target} kept changing while it was being edited ({_CAS_ATTEMPTS} tries); "
        "read it again and retry the edit."
    )


_CAS_ATTEMPTS = 5


def _over_limit(target: Path, max_bytes: int) -> str:
    """Why `target` is too big to edit ("" when it is not, or is no file: said later)."""
    try:
        size = target.stat().st_size
    except OSError:
        return ""
    return _too_big(target, size, max_bytes) if size > max_bytes else ""


def _too_big(target: Path, size: int, max_bytes: int) -> str:
    return (
        f"{target} is {human_size(size)}, over the {human_size(max_bytes)} `edit` limit "
        f"(tools.edit_max_bytes). Change it with `bash` (e.g. `sed -i`) instead."
    )


def _edit_opened(
    target: Path,
    opened: OpenedFile,
    old: str,
    new: str,
    max_bytes: int,
    memory: MemoryWriter | None = None,
) -> ToolChunk | None:
    """One compare-and-swap attempt on an open file; None when the file changed under it."""
    if opened.size > max_bytes:
        return error(_too_big(target, opened.size, max_bytes))
    data = opened.data
    if data is None:
        return error(f"File not found: {target}. To create it, use `write`.")
    if len(data) > max_bytes:
        return None  # it grew past the limit while being read: the next try says so
    if looks_binary(data[:8192]):
        return error(f"{target} is a binary file; `edit` changes text files only.")
    file = _TextFile.decode(data)
    content = file.text
    if file.crlf:
        old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    try:
        done = apply_edit(content, old, new)
    except EditRefused as refused:
        return error(_refusal_message(refused, target, content, old))
    updated = done.content
    try:
        encoded = file.encode(updated)
    except UnicodeEncodeError:
        return error("`new_text` holds characters that cannot be written as UTF-8.")
    try:
        if memory is not None:  # memory files: versioned, redacted, appends kept
            memory.write(target, encoded, source="agent edit", allow_shrink=True, expected=data)
        elif not opened.unchanged_so_far():
            return None  # replaced or shortened meanwhile: read it again
        else:
            atomic_write_bytes(target, encoded)
            opened.carry_over()
    except ChangedMeanwhile:
        return None  # changed between the check and the write: read it again
    except MemoryWriteError as exc:
        return error(str(exc))
    except OSError as exc:
        return error(f"Cannot write {target}: {exc.strerror or exc}.")
    note = " (matched ignoring whitespace and quote style)" if done.tolerant else ""
    diff = unified_diff(content, updated, target.name)
    return ok(
        f"Edited {target} at line {done.line}{note}.\n{diff}",
        path=str(target),
        line=done.line,
        tolerant=done.tolerant,
    )


def _refusal_message(refused: EditRefused, target: Path, content: str, old: str) -> str:
    if refused.reason == "unchanged":
        return "`new_text` is the same as the text it replaces: nothing to change."
    if refused.reason == "ambiguous":
        lines = ", ".join(str(line) for line in refused.lines[:20])
        how = " (ignoring whitespace and quote style)" if refused.tolerant else ""
        return (
            f"`old_text` matches {len(refused.lines)} times in {target}{how}, at lines {lines}. "
            f"Include more surrounding lines in `old_text` so it matches exactly once."
        )
    return _not_found_message(target, content, old)


def _not_found_message(target: Path, content: str, old: str) -> str:
    message = (
        f"`old_text` was not found in {target}, not even ignoring whitespace and quote style. "
        f"Read the file again and copy the text exactly (without line numbers)."
    )
    hint = closest_line(content, old)
    if hint is not None:
        number, line = hint
        message += f" The most similar line is {number}: {_printable(line.strip()[:200])!r}"
    return message


def _printable(text: str) -> str:
    """Undecodable bytes (kept as surrogates) shown as U+FFFD, so the text can be sent."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def unified_diff(before: str, after: str, name: str) -> str:
    """A unified diff with 3 lines of context, cut to MAX_DIFF_LINES."""
    lines = list(
        difflib.unified_diff(
            before.splitlines(),
            after.splitlines(),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
            lineterm="",
        )
    )
    if len(lines) > MAX_DIFF_LINES:
        cut = len(lines) - MAX_DIFF_LINES
        lines = lines[:MAX_DIFF_LINES] + [f"[… {cut} more diff lines not shown]"]
    return _printable("\n".join(lines))
