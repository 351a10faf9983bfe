"""memory_read: a memory file in pages of lines, at most READ_MAX_CHARS characters each (a longer
line comes in pieces), with the SHA-256 of the whole file (the version `expected_sha256` names).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import Field

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


def _lines_of(handle: BinaryIO, digest: Any) -> Iterator[str]:
    """The file's lines as text (ends kept, split at \\n, \\r\\n and \\r like a text file opened
    with newline=''), feeding every byte to `digest` on the way."""
    for raw in handle:
        digest.update(raw)
        line = raw.decode("utf-8")
        if "\r" in line:  # a lone CR ends a line too
            yield from _LONE_CR.split(line)
        else:
            yield line


_LONE_CR = re.compile(r"(?<=\r)(?!\n)(?=.)", re.DOTALL)


def _read_lines(path: Path, relative: str, params: ReadParams) -> ReadResult:
    """Stream the file (any size): keep the wanted lines up to the page limits (READ_MAX_CHARS
    characters: a longer line comes in pieces), count all, and hash every byte (the `sha256` a
    later change passes as `expected_sha256`)."""
    check_file(path, relative)
    start, end, skip = params.start_line, params.end_line, params.start_char
    if end is not None and end < start:
        raise InvalidParams(f"end_line {end} is before start_line {start}")
    last_wanted = end if end is not None else start - 1 + READ_MAX_LINES
    picked: list[str] = []
    size = 0
    full = False
    cut_at: int | None = None  # the page ends inside its first line, at this character
    total = 0
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for total, line in enumerate(_lines_of(handle, digest), start=1):
                if not start <= total <= last_wanted or full:
                    continue
                if total == start and skip:
                    if skip >= len(line):
                        raise InvalidParams(
                            f"start_char {skip} is past the end of line {start} of {relative!r} "
                            f"({len(line)} characters)"
                        )
                    line = line[skip:]
                if not picked and len(line) > READ_MAX_CHARS:
                    picked.append(line[:READ_MAX_CHARS])
                    cut_at = skip + READ_MAX_CHARS
                    full = True
                elif picked and size + len(line) > READ_MAX_CHARS:
                    full = True
                else:
                    picked.append(line)
                    size += len(line)
    except UnicodeDecodeError:
        raise InvalidParams(f"{relative!r} is not a UTF-8 text file") from None
    if start > max(total, 1):
        raise InvalidParams(f"start_line {start} is past the end of {relative!r} ({total} lines)")
    if cut_at is not None:
        return ReadResult(
            path=relative,
            start_line=start,
            end_line=start,
            total_lines=total,
            content=picked[0],
            truncated=True,
            next_start_line=start,
            next_start_char=cut_at,
            sha256=digest.hexdigest(),
        )
    shown_end = start - 1 + len(picked)
    wanted_end = total if end is None else min(end, total)
    more = shown_end < wanted_end
    return ReadResult(
        path=relative,
        start_line=start,
        end_line=shown_end,
        total_lines=total,
        content="".join(picked),
        truncated=more,
        next_start_line=shown_end + 1 if more else None,
        next_start_char=None,
        sha256=digest.hexdigest(),
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
    return await asyncio.to_thread(_read_lines, target.path, target.relative, params)


def next_page(page: dict[str, Any]) -> dict[str, int] | None:
    """The memory_read arguments of the page after `page` (a memory_read answer); None: last."""
    if page["next_start_line"] is None:
        return None
    return {"start_line": page["next_start_line"], "start_char": page["next_start_char"] or 0}
