"""The one file service: every caller's read, write, edit and list of a file goes through here.

The memory writer it is given (constructor injection, the composition root's one writer) owns
what "a memory file" is and writes those (locked, versioned, redacted, atomic); any other file
is replaced atomically. Results are typed; each caller (the agent's tools, the jobs, the
summarizer's and dream's tools) words them for its audience.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from remecli.notes.atomic_write import atomic_write_bytes
from remecli.notes.file_service.editing import FileEdited, edit_file
from remecli.notes.file_service.reading import FileRead, page_text, read_numbered, read_page
from remecli.notes.file_service.sniff import is_note_path, leaves_workspace
from remecli.notes.files import read_memory_text
from remecli.notes.writer import UNCHECKED, MemoryWriter, _Unchecked


@dataclass(frozen=True)
class FileWritten:
    """A write done: `version` kept (None: history off, or not a memory file), the kinds of
    secrets redacted, whether the file was `created` and whether its content `changed`."""

    path: Path
    created: bool
    changed: bool
    bytes: int
    memory: bool
    version: int | None = None
    redactions: tuple[str, ...] = ()


class FileService:
    """Read (paged), write, edit and list files; memory files through `writer`."""

    def __init__(self, writer: MemoryWriter) -> None:
        self.writer = writer

    # ------------------------------------------------------------------ what a file is
    def is_memory_file(self, path: Path | str) -> bool:
        """True for MEMORY.md, memory/** and digest/** under the working dir (symlinks
        followed; hidden names excluded): the files the writer versions and redacts."""
        return self.writer.is_memory_file(path)

    def memory_note(self, path: Path | str) -> str | None:
        """The relative path of `path` when it is a Markdown memory note (MEMORY.md, or `*.md`
        under memory/ or digest/), else None."""
        relative = self.writer.relative(path)
        return relative if relative is not None and is_note_path(relative) else None

    @staticmethod
    def leaves_workspace(target: Path, workspace: Path) -> bool:
        """True when `target`, named inside `workspace`, leads out of it through a symlink."""
        return leaves_workspace(target, workspace)

    # ------------------------------------------------------------------------------ read
    @staticmethod
    def read_numbered(path: Path, start: int, count: int, max_bytes: int) -> FileRead:
        """A page of numbered lines of any text file (the agent's `read`)."""
        return read_numbered(path, start, count, max_bytes)

    @staticmethod
    def read_page(
        path: Path,
        start: int,
        end: int | None,
        *,
        max_lines: int,
        max_chars: int,
        start_char: int = 0,
    ) -> FileRead:
        """A page of a UTF-8 file, line ends kept, with the whole file's `sha256`."""
        return read_page(path, start, end, max_lines, max_chars, start_char)

    @staticmethod
    def read_text(path: Path) -> str | None:
        """The text of a memory file (bytes that are not UTF-8 as U+FFFD); None when absent."""
        try:
            return read_memory_text(path)
        except FileNotFoundError:
            return None

    @staticmethod
    def page_text(path: Path, text: str, start: int, count: int) -> FileRead:
        """A page of `text` (the content of `path` as the caller sees it), line ends kept."""
        return page_text(path, text, start, count)

    # ----------------------------------------------------------------------------- write
    def write(
        self,
        path: Path,
        text: str | bytes,
        *,
        source: str,
        allow_shrink: bool = False,
        expected: str | bytes | None | _Unchecked = UNCHECKED,
        base: str | bytes | None = None,
    ) -> FileWritten:
        """Replace `path` with `text`: a memory file through the writer (raises its
        MemoryWriteError subclasses), any other atomically (parents made). Raises OSError."""
        if self.writer.is_memory_file(path):
            result = self.writer.write(
                path,
                text,
                source=source,
                allow_shrink=allow_shrink,
                expected=expected,
                base=base,
            )
            return FileWritten(
                path=path,
                created=result.created,
                changed=result.changed,
                bytes=result.bytes,
                memory=True,
                version=result.version,
                redactions=tuple(result.redacted),
            )
        existed = path.exists()
        data = text if isinstance(text, bytes) else text.encode("utf-8", errors="replace")
        atomic_write_bytes(path, data)  # lone surrogates from JSON become "?"
        return FileWritten(path, created=not existed, changed=True, bytes=len(data), memory=False)

    # ------------------------------------------------------------------------------ edit
    def edit(
        self, path: Path, old: str, new: str, *, max_bytes: int, source: str = "edit"
    ) -> FileEdited:
        """Replace the one occurrence of `old` in `path` with `new` on disk (compare-and-swap;
        memory files through the writer). Raises `editing.EditFailed` subclasses."""
        memory = self.writer if self.writer.is_memory_file(path) else None
        return edit_file(path, old, new, max_bytes, memory, source)

    # ------------------------------------------------------------------------------ list
    @staticmethod
    def list_names(folder: Path) -> list[str]:
        """Entry names sorted case-insensitively, `/` after folders (symlinks followed).
        Raises FileNotFoundError, NotADirectoryError, PermissionError."""
        entries = []
        with os.scandir(folder) as scan:
            for entry in scan:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                entries.append(entry.name + ("/" if is_dir else ""))
        return sorted(entries, key=lambda name: (name.lower(), name))
