"""memory_read: a memory file in pages of lines, at most READ_MAX_CHARS characters each (a longer
line comes in pieces), with the SHA-256 of the whole file (the version `expected_sha256` names).
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

from pydantic import Field

from remecli.notes.file_service import FileService
from remecli.notes.file_service.reading import StartCharPastLine
from remecli.ops.context import JobContext
from remecli.ops.errors import InvalidParams, NotFound
from remecli.ops.registry import JOBS, JobParams, JobResult

READ_MAX_LINES = 2_000
READ_MAX_CHARS = 50_000  # the docstring of memory_read says it


def sha256_hex(data: bytes) -> str:
    """The version marker `expected_sha256` compares: the SHA-256 of the file's bytes."""
    return hashlib.sha256(data).hexdigest()


class ReadParams(JobParams["ReadResult"]):
    path: str = Field(description="File relative to the working dir, e.g. MEMORY.md")
    start_line: int = Field(1, ge=1, description="First line to return (1-based)")
    end_line: int | None = Field(
        None, ge=1, description="Last line to return (inclusive); default: as much as fits"
    )
    start_char: int = Field(
        0,
        ge=0,
        description="Characters of start_line to skip (0-based; a page that ended inside a long "
        "line names it: next_start_char)",
    )


class ReadResult(JobResult):
    path: str
    start_line: int
    end_line: int
    total_lines: int
    content: str
    truncated: bool
    next_start_line: int | None
    next_start_char: int | None = Field(
        description="With next_start_line: where in that line the next page starts (a line "
        "longer than a page comes in pieces); None: at its start"
    )
    sha256: str = Field(
        description="SHA-256 of the whole file (pass as expected_sha256 to change it)"
    )


def check_file(path: Path, relative: str) -> None:
    if path.is_dir():
        raise InvalidParams(f"{relative!r} is a folder; use memory_list to see what is in it")
    if not path.is_file():
        raise NotFound(f"no file {relative!r}; use memory_list to see what exists")


def _read_lines(files: FileService, path: Path, relative: str, params: ReadParams) -> ReadResult:
    """A page of the file through the file service (streamed, any size; at most
    READ_MAX_CHARS characters: a longer line comes in pieces), with the whole file's `sha256`
    (what a later change passes as `expected_sha256`)."""
    check_file(path, relative)
    start, end, skip = params.start_line, params.end_line, params.start_char
    if end is not None and end < start:
        raise InvalidParams(f"end_line {end} is before start_line {start}")
    try:
        page = files.read_page(
            path, start, end, max_lines=READ_MAX_LINES, max_chars=READ_MAX_CHARS, start_char=skip
        )
    except UnicodeDecodeError:
        raise InvalidParams(f"{relative!r} is not a UTF-8 text file") from None
    except StartCharPastLine as past:
        raise InvalidParams(
            f"start_char {skip} is past the end of line {start} of {relative!r} "
            f"({past.length} characters)"
        ) from None
    total = page.total_lines
    if start > max(total, 1):
        raise InvalidParams(f"start_line {start} is past the end of {relative!r} ({total} lines)")
    more = page.truncated
    if not more:
        next_line = None
    elif page.next_start_char is not None:
        next_line = page.last_line  # a line longer than a page: its next piece
    else:
        next_line = page.last_line + 1
    return ReadResult(
        path=relative,
        start_line=start,
        end_line=page.last_line,
        total_lines=total,
        content=page.text,
        truncated=more,
        next_start_line=next_line,
        next_start_char=page.next_start_char,
        sha256=page.sha256 or "",
    )


@JOBS.define("memory_read", params=ReadParams, result=ReadResult, read_only=True)
async def memory_read(ctx: JobContext, params: ReadParams) -> ReadResult:
    """Read lines of a memory file (MEMORY.md, memory/*.md, a transcript under sessions/, …).

    Long files come in pages of at most 50,000 characters: when `truncated` is true, call
    again with `next_start_line` (and `start_char` = `next_start_char` when it is given: a
    longer line comes in pieces).
    `sha256` is the whole file's version: pass it as `expected_sha256` to memory_edit/write.
    """
    target = ctx.confine(params.path)
    return await asyncio.to_thread(_read_lines, ctx.files, target.path, target.relative, params)


def next_page(page: dict[str, Any]) -> dict[str, int] | None:
    """The memory_read arguments of the page after `page` (a memory_read answer); None: last."""
    if page["next_start_line"] is None:
        return None
    return {"start_line": page["next_start_line"], "start_char": page["next_start_char"] or 0}
