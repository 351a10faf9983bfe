"""The `write` tool: create or overwrite a whole file, atomically."""

from __future__ import annotations

import asyncio
from pathlib import Path

from remecli.llm.runtime.tooling import ToolChunk
from remecli.llm.tool_results import ToolArgumentError, as_text, error, ok
from remecli.notes.atomic_write import atomic_write_bytes
from remecli.notes.writer import MemoryWriteError, MemoryWriter
from remecli.tools.context import ToolContext


async def write(ctx: ToolContext, path: str, content: str) -> ToolChunk:
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
    writer = ctx.writer
    if writer.is_memory_file(target):  # versioned, redacted, never drops lines silently
        return await asyncio.to_thread(_write_memory, writer, target, text)
    return await asyncio.to_thread(_checkpointed_write, ctx, target, text)


def _checkpointed_write(ctx: ToolContext, target: Path, text: str) -> ToolChunk:
    if ctx.checkpoints is None:
        return _write(target, text)
    with ctx.checkpoints.changing(target, "write"):  # kept before, for /diff and /undo
        return _write(target, text)


def _write_memory(writer: MemoryWriter, target: Path, text: str) -> ToolChunk:
    try:
        result = writer.write(target, text, source="agent write")
    except MemoryWriteError as exc:
        return error(str(exc))
    except OSError as exc:
        return error(f"Cannot write {target}: {exc.strerror or exc}.")
    verb = "Created" if result.created else "Overwrote"
    kept = "; the previous content is kept as a version" if result.changed else ""
    hidden = f"; secrets redacted: {', '.join(result.redacted)}" if result.redacted else ""
    note = "" if result.created else kept
    return ok(f"{verb} {target} ({result.bytes} bytes written{note}{hidden}).", path=str(target))


def _write(target: Path, text: str) -> ToolChunk:
    if target.is_dir():
        return error(f"{target} is a folder: pass a file path.")
    existed = target.exists()
    data = text.encode("utf-8", errors="replace")  # lone surrogates from JSON become "?"
    try:
        atomic_write_bytes(target, data)
    except NotADirectoryError:
        return error(f"Cannot write {target}: part of its parent path is a file, not a folder.")
    except OSError as exc:
        return error(f"Cannot write {target}: {exc.strerror or exc}.")
    verb = "Overwrote" if existed else "Created"
    return ok(f"{verb} {target} ({len(data)} bytes written).", path=str(target), bytes=len(data))
