"""The `write` tool: create or overwrite a whole file, atomically."""

from __future__ import annotations

import asyncio
from pathlib import Path

from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import ToolArgumentError, as_text, error, ok
from remecli.notes.file_service import FileService
from remecli.notes.writer import MemoryWriteError
from remecli.tools.context import ToolContext


async def write(ctx: ToolContext, path: str, content: str) -> ToolOutput:
    """Create a file or replace its whole content; missing parent folders are created.

    To change part of an existing file, prefer `edit`.

    Args:
        path: The file to write, relative to the workspace or absolute.
        content: The complete new content of the file.
    """
    try:
        target = ctx.resolve(as_text(path, "path"))
        text = as_text(content, "content")
    except ToolArgumentError as exc:
        return error(str(exc))
    if target.is_dir():  # before the checkpoint looks at it
        return error(f"{target} is a folder: pass a file path.")
    files = ctx.files
    if files.is_memory_file(target):  # versioned, redacted, never drops lines silently
        return await asyncio.to_thread(_write_memory, files, target, text)
    return await asyncio.to_thread(_checkpointed_write, ctx, target, text)


def _checkpointed_write(ctx: ToolContext, target: Path, text: str) -> ToolOutput:
    if ctx.checkpoints is None:
        return _write(ctx.files, target, text)
    with ctx.checkpoints.changing(target, "write"):  # kept before, for /diff and /undo
        return _write(ctx.files, target, text)


def _write_memory(files: FileService, target: Path, text: str) -> ToolOutput:
    try:
        result = files.write(target, text, source="agent write")
    except MemoryWriteError as exc:
        return error(str(exc))
    except OSError as exc:
        return error(f"Cannot write {target}: {exc.strerror or exc}.")
    verb = "Created" if result.created else "Overwrote"
    kept = "; the previous content is kept as a version" if result.changed else ""
    hidden = f"; secrets redacted: {', '.join(result.redactions)}" if result.redactions else ""
    note = "" if result.created else kept
    return ok(f"{verb} {target} ({result.bytes} bytes written{note}{hidden}).", path=str(target))


def _write(files: FileService, target: Path, text: str) -> ToolOutput:
    if target.is_dir():
        return error(f"{target} is a folder: pass a file path.")
    try:
        result = files.write(target, text, source="agent write")
    except NotADirectoryError:
        return error(f"Cannot write {target}: part of its parent path is a file, not a folder.")
    except OSError as exc:
        return error(f"Cannot write {target}: {exc.strerror or exc}.")
    verb = "Created" if result.created else "Overwrote"
    return ok(
        f"{verb} {target} ({result.bytes} bytes written).", path=str(target), bytes=result.bytes
    )
