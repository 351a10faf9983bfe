"""The `edit` tool: replace one unique piece of a text file, keeping its BOM and line ends."""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path

from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import ToolArgumentError, as_text, error, ok
from remecli.notes.file_service import EditFailed, FileService
from remecli.notes.file_service.editing import (
    CAS_ATTEMPTS,
    BinaryFile,
    CannotAccess,
    FileMissing,
    NotEncodable,
    NotRegularFile,
    NotReplaced,
    TooBig,
    size_over,
)
from remecli.notes.matching import EditRefused, closest_line
from remecli.notes.writer import MemoryWriteError
from remecli.tools._files import human_size
from remecli.tools.checkpoints import Checkpoints
from remecli.tools.context import ToolContext

MAX_DIFF_LINES = 80


async def edit(ctx: ToolContext, path: str, old_text: str, new_text: str) -> ToolOutput:
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
    files = ctx.files
    memory = files.is_memory_file(target)
    limit = ctx.settings.edit_max_bytes
    size = size_over(target, limit)  # before the checkpoint copies or hashes the file
    if size is not None:
        return error(_too_big(target, size, limit))
    if memory or ctx.checkpoints is None:
        return await asyncio.to_thread(_edit, files, target, old, new, limit)
    return await asyncio.to_thread(
        _checkpointed_edit, ctx.checkpoints, files, target, old, new, limit
    )


def _checkpointed_edit(
    checkpoints: Checkpoints, files: FileService, target: Path, old: str, new: str, max_bytes: int
) -> ToolOutput:
    with checkpoints.changing(target, "edit"):  # kept before, for /diff and /undo
        return _edit(files, target, old, new, max_bytes)


def _edit(files: FileService, target: Path, old: str, new: str, max_bytes: int) -> ToolOutput:
    """Edit through the file service (compare-and-swap, appends kept; memory files versioned
    and redacted) and say what happened, or what to do instead."""
    try:
        done = files.edit(target, old, new, max_bytes=max_bytes, source="agent edit")
    except EditFailed as failed:
        return error(_failure_message(failed, max_bytes))
    except MemoryWriteError as exc:
        return error(str(exc))
    note = " (matched ignoring whitespace and quote style)" if done.tolerant else ""
    diff = unified_diff(done.before, done.after, target.name)
    return ok(
        f"Edited {target} at line {done.line}{note}.\n{diff}",
        path=str(target),
        line=done.line,
        tolerant=done.tolerant,
    )


def _failure_message(failed: EditFailed, max_bytes: int) -> str:
    """What the model is told when an edit was not made."""
    target = failed.path
    if isinstance(failed, FileMissing):
        return f"File not found: {target}. To create it, use `write`."
    if isinstance(failed, NotRegularFile):
        return f"{target} is not a regular file (a folder or a device)."
    if isinstance(failed, TooBig):
        return _too_big(target, failed.size, failed.limit)
    if isinstance(failed, BinaryFile):
        return f"{target} is a binary file; `edit` changes text files only."
    if isinstance(failed, NotEncodable):
        return "`new_text` holds characters that cannot be written as UTF-8."
    if isinstance(failed, NotReplaced):
        return _refusal_message(failed.refused, target, failed.content, failed.old)
    if isinstance(failed, CannotAccess):
        verb = "write" if failed.writing else "edit"
        return f"Cannot {verb} {target}: {failed.error.strerror or failed.error}."
    return (
        f"{target} kept changing while it was being edited ({CAS_ATTEMPTS} tries); "
        "read it again and retry the edit."
    )


def _too_big(target: Path, size: int, max_bytes: int) -> str:
    return (
        f"{target} is {human_size(size)}, over the {human_size(max_bytes)} `edit` limit "
        f"(tools.edit_max_bytes). Change it with `bash` (e.g. `sed -i`) instead."
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
