"""Reading files a page at a time, through the one pager (`paging.page_lines`).

Three views of one mechanism: numbered lines of any text file, streamed with bounded memory
(the agent's `read`); lines with their ends kept, strict UTF-8, hashed whole (the `memory_read`
job, whose `sha256` later changes compare); and a page of text already in memory (the
summarizer's and dream's `read`, which see staged changes).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from remecli.notes.file_service.paging import Page, as_is, page_lines
from remecli.notes.file_service.sniff import UTF16_BOMS

UTF8_BOM = b"\xef\xbb\xbf"

MAX_LINE_CHARS = 2_000
MAX_LINE_BYTES = 4 * MAX_LINE_CHARS + 4  # enough bytes for MAX_LINE_CHARS of any UTF-8 text
COUNT_SCAN_BYTES = 64 * 1024 * 1024  # lines past the page are counted up to this far


@dataclass(frozen=True)
class FileRead:
    """A page of a file: its text, which lines it holds and how many the file has.

    `text` joins the page's lines (numbered `number<TAB>line` by `read_numbered`, with their
    own ends by `read_page` and `page_text`). `truncated`: lines follow that were wanted but
    did not fit. `exact_total` False: the file was too big to count all (a lower bound).
    `replaced`: shown lines that had bytes that are not UTF-8. `sha256`: of the whole file
    (`read_page`). `next_start_char`: the page ended inside its one line, there.
    """

    path: Path
    text: str
    first_line: int
    last_line: int
    total_lines: int
    truncated: bool
    exact_total: bool = True
    replaced: int = 0
    sha256: str | None = None
    next_start_char: int | None = None

    @property
    def past_end(self) -> bool:
        """True when the page starts after the last line (nothing shown)."""
        return self.first_line > self.total_lines


class _Hash(Protocol):
    def update(self, data: bytes, /) -> None: ...


class StartCharPastLine(ValueError):
    """`start_char` skips the whole first line of the page."""

    def __init__(self, line: int, length: int) -> None:
        super().__init__(f"start_char is past the end of line {line} ({length} characters)")
        self.line = line
        self.length = length


def _read_from(
    page: Page, path: Path, wanted_end: int | None = None, sha256: str | None = None
) -> FileRead:
    """A FileRead of `page`; `wanted_end`: the last line the caller asked for (None: all)."""
    end = page.last_line
    return FileRead(
        path=path,
        text="".join(page.lines),
        first_line=page.first_line,
        last_line=end,
        total_lines=page.total_lines,
        truncated=end
        < (page.total_lines if wanted_end is None else min(wanted_end, page.total_lines)),
        exact_total=page.exact_total,
        sha256=sha256,
    )


# ------------------------------------------------------------------ numbered (the agent's `read`)
def read_numbered(path: Path, start: int, count: int, max_bytes: int) -> FileRead:
    """Lines `start`.. of a text file as `number<TAB>text` lines, at most `count` and about
    `max_bytes` (the first line always); UTF-16 files (by their BOM) decoded whole, any other
    streamed as UTF-8 (bytes that are not become U+FFFD), a too-long line cut."""
    with path.open("rb") as handle:
        if handle.read(2) in UTF16_BOMS:
            text = path.read_text(encoding="utf-16", errors="replace")
            return _numbered(
                path, (line.encode("utf-8") for line in text.splitlines()), start, count, max_bytes
            )
        handle.seek(0)
        size = path.stat().st_size
        return _numbered(path, _raw_lines(handle), start, count, max_bytes, handle, size)


def _numbered(
    path: Path,
    lines: Iterable[bytes],
    start: int,
    count: int,
    max_bytes: int,
    handle: BinaryIO | None = None,
    size: int = 0,
) -> FileRead:
    counted_from: int | None = None  # file offset where the page ended (bounded line count)

    def keep_counting() -> bool:
        nonlocal counted_from
        assert handle is not None
        offset = handle.tell()
        counted_from = offset if counted_from is None else counted_from
        return offset - counted_from <= COUNT_SCAN_BYTES

    page = page_lines(
        lines,
        start,
        count,
        _numbered_line,
        budget=max_bytes,
        cost=lambda rendered: len(rendered.encode("utf-8")) + 1,
        keep_counting=None if handle is None else keep_counting,
    )
    exact = page.exact_total
    if exact and handle is not None and handle.tell() < size:
        exact = False  # stopped inside an endless line
    replaced = sum("\ufffd" in line for line in page.lines)
    end = page.last_line
    return FileRead(
        path=path,
        text="\n".join(page.lines),
        first_line=start,
        last_line=end,
        total_lines=page.total_lines,
        truncated=end < page.total_lines,
        exact_total=exact,
        replaced=replaced,
    )


def _numbered_line(number: int, raw: bytes) -> str:
    line = raw.decode("utf-8", errors="replace")
    if "\x00" in line:
        line = f"[binary data: line of at least {len(raw)} bytes not shown]"
    if len(line) > MAX_LINE_CHARS:
        line = line[:MAX_LINE_CHARS] + f" … [line cut at {MAX_LINE_CHARS} characters]"
    return f"{number:>6}\t{line}"


def _raw_lines(handle: BinaryIO) -> Iterator[bytes]:
    """The lines of a file as bytes, without line ends or a leading UTF-8 BOM (streamed).

    Memory stays bounded whatever the file holds: a line longer than `MAX_LINE_BYTES` yields
    its head only (the rest is skipped, it would be cut for display anyway).
    """
    number = 0
    while raw := handle.readline(MAX_LINE_BYTES):
        number += 1
        endless = len(raw) == MAX_LINE_BYTES and not raw.endswith(b"\n")
        if endless and not _skip_rest_of_line(handle):
            yield raw  # a line too long to even skip to its end: the rest is left unread
            return
        if number == 1 and raw.startswith(UTF8_BOM):
            raw = raw[len(UTF8_BOM) :]
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        yield raw


def _skip_rest_of_line(handle: BinaryIO) -> bool:
    """Read past the end of the current line; False if it goes on beyond COUNT_SCAN_BYTES."""
    skipped = 0
    while rest := handle.readline(1 << 20):
        if rest.endswith(b"\n"):
            return True
        skipped += len(rest)
        if skipped > COUNT_SCAN_BYTES:
            return False
    return True


# ------------------------------------------------------------ with line ends (`memory_read`)
def read_page(
    path: Path, start: int, end: int | None, max_lines: int, max_chars: int, start_char: int = 0
) -> FileRead:
    """Lines `start`..`end` of a UTF-8 file with their ends (no `end`: at most `max_lines`),
    at most `max_chars` characters (a longer line comes in pieces: `next_start_char`), skipping `start_char`
    characters of the first; every byte hashed (`sha256`). Raises UnicodeDecodeError,
    StartCharPastLine."""

    def render(number: int, line: str) -> str:
        if number == start and start_char:
            if start_char >= len(line):
                raise StartCharPastLine(start, len(line))
            return line[start_char:]
        return line

    count = (start - 1 + max_lines if end is None else end) - start + 1
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        page = page_lines(_text_lines(handle, digest), start, count, render, budget=max_chars)
    if page.lines and len(page.lines[0]) > max_chars:  # one line longer than a page: a piece
        return FileRead(
            path=path,
            text=page.lines[0][:max_chars],
            first_line=start,
            last_line=start,
            total_lines=page.total_lines,
            truncated=True,
            sha256=digest.hexdigest(),
            next_start_char=start_char + max_chars,
        )
    return _read_from(page, path, end, sha256=digest.hexdigest())


def _text_lines(handle: BinaryIO, digest: _Hash) -> Iterator[str]:
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


# ------------------------------------------------------------------ in memory (summary tools)
def page_text(path: Path, text: str, start: int, count: int) -> FileRead:
    """Lines `start`.. of `text` (ends kept), at most `count`."""
    page = page_lines(text.splitlines(keepends=True), start, count, as_is)
    return _read_from(page, path)
