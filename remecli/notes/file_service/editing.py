"""Replacing one unique piece of a text file on disk, keeping its BOM and line ends.

The file is kept open while the change is made: what another process appends to it meanwhile
(an editor, a logger) is kept at the end of the new file (`opened_for_replace`, the memory
writer does the same), and a file replaced or shortened meanwhile is read again (compare-and-
swap, retried). No line is lost. Memory files go through the memory writer (versioned,
redacted). Each way an edit is not made is its own exception; the caller words it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from remecli.notes.atomic_write import OpenedFile, atomic_write_bytes, opened_for_replace
from remecli.notes.file_service.reading import UTF8_BOM
from remecli.notes.file_service.sniff import looks_binary
from remecli.notes.matching import EditRefused, apply_edit
from remecli.notes.writer import ChangedMeanwhile, MemoryWriter

CAS_ATTEMPTS = 5


@dataclass(frozen=True)
class FileEdited:
    """An edit made: the text before and after (line ends as `\\n` for a CRLF file), the
    1-based line where the replaced text started, and whether it matched only tolerantly
    (ignoring whitespace and quote style)."""

    path: Path
    before: str
    after: str
    line: int
    tolerant: bool
    memory: bool


class EditFailed(Exception):
    """An edit that was not made."""

    def __init__(self, path: Path, detail: str = "") -> None:
        super().__init__(detail or str(path))
        self.path = path


class FileMissing(EditFailed):
    """No such file."""


class NotRegularFile(EditFailed):
    """A folder, a device, a socket."""


class TooBig(EditFailed):
    """The file is over the size limit."""

    def __init__(self, path: Path, size: int, limit: int) -> None:
        super().__init__(path, f"{size} bytes, over {limit}")
        self.size = size
        self.limit = limit


class BinaryFile(EditFailed):
    """The file is not text."""


class NotEncodable(EditFailed):
    """The new text cannot be written as UTF-8."""


class KeptChanging(EditFailed):
    """The file changed under every attempt."""


class NotReplaced(EditFailed):
    """`apply_edit` refused; `content` is the file's text it looked in."""

    def __init__(self, path: Path, refused: EditRefused, content: str, old: str) -> None:
        super().__init__(path, refused.reason)
        self.refused = refused
        self.content = content
        self.old = old


class CannotAccess(EditFailed):
    """An OSError opening (`writing` False) or replacing (`writing` True) the file."""

    def __init__(self, path: Path, error: OSError, *, writing: bool) -> None:
        super().__init__(path, str(error))
        self.error = error
        self.writing = writing


@dataclass
class TextFile:
    """A decoded text file and how to encode it back byte-for-byte."""

    text: str  # line ends normalised to \n when the file uses CRLF throughout
    bom: bool
    crlf: bool

    @classmethod
    def decode(cls, data: bytes) -> TextFile:
        """`data` as text; undecodable bytes kept as surrogates (they round-trip)."""
        bom = data.startswith(UTF8_BOM)
        if bom:
            data = data[len(UTF8_BOM) :]
        text = data.decode("utf-8", errors="surrogateescape")
        crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
        return cls(text.replace("\r\n", "\n") if crlf else text, bom, crlf)

    def encode(self, text: str) -> bytes:
        """`text` as this file's bytes (its BOM and line ends)."""
        if self.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        data = text.encode("utf-8", errors="surrogateescape")
        return UTF8_BOM + data if self.bom else data


def size_over(path: Path, limit: int) -> int | None:
    """The size of `path` when it is over `limit` (None: within it, or no file: said later)."""
    try:
        size = path.stat().st_size
    except OSError:
        return None
    return size if size > limit else None


def edit_file(
    target: Path,
    old: str,
    new: str,
    max_bytes: int,
    memory: MemoryWriter | None = None,
    source: str = "edit",
) -> FileEdited:
    """Replace the one occurrence of `old` in `target` with `new` (see the module docstring).

    With `memory`, the file is written by that writer (versioned, redacted, `source` recorded).
    Raises an EditFailed subclass, or the writer's MemoryWriteError.
    """
    if not target.exists():
        raise FileMissing(target)
    if not target.is_file():
        raise NotRegularFile(target)
    for _ in range(CAS_ATTEMPTS):
        try:
            with opened_for_replace(target, max_bytes) as opened:
                done = _edit_opened(target, opened, old, new, max_bytes, memory, source)
        except OSError as exc:
            raise CannotAccess(target, exc, writing=False) from exc
        if done is not None:
            return done
    raise KeptChanging(target, f"changed under {CAS_ATTEMPTS} attempts")


def _edit_opened(
    target: Path,
    opened: OpenedFile,
    old: str,
    new: str,
    max_bytes: int,
    memory: MemoryWriter | None,
    source: str,
) -> FileEdited | None:
    """One compare-and-swap attempt on an open file; None when the file changed under it."""
    if opened.size > max_bytes:
        raise TooBig(target, opened.size, max_bytes)
    data = opened.data
    if data is None:
        raise FileMissing(target)
    if len(data) > max_bytes:
        return None  # it grew past the limit while being read: the next try says so
    if looks_binary(data[:8192]):
        raise BinaryFile(target)
    file = TextFile.decode(data)
    content = file.text
    if file.crlf:
        old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    try:
        done = apply_edit(content, old, new)
    except EditRefused as refused:
        raise NotReplaced(target, refused, content, old) from None
    try:
        encoded = file.encode(done.content)
    except UnicodeEncodeError:
        raise NotEncodable(target) from None
    try:
        if memory is not None:  # memory files: versioned, redacted, appends kept
            memory.write(target, encoded, source=source, allow_shrink=True, expected=data)
        elif not opened.unchanged_so_far():
            return None  # replaced or shortened meanwhile: read it again
        else:
            atomic_write_bytes(target, encoded)
            opened.carry_over()
    except ChangedMeanwhile:
        return None  # changed between the check and the write: read it again
    except OSError as exc:
        raise CannotAccess(target, exc, writing=True) from exc
    return FileEdited(target, content, done.content, done.line, done.tolerant, memory is not None)
