"""The summarizer's, the day page's, dream's and Auto Resource's way to the one memory writer.

`write_memory_file(writer, path, text, reason)` goes through the file service over the
`MemoryWriter` the composition root built (atomic, versioned, redacting secrets) and the caller
was given; a path that is not a memory file (a caller's own scratch file) is written atomically
as it is. The callers check their
own no-drop rules (cards, day pages), so shrinking is theirs to allow.
"""

from __future__ import annotations

from pathlib import Path

from remecli.config.privacy import private_dirs
from remecli.notes.file_service import FileService
from remecli.notes.writer import MemoryWriter


def write_memory_file(
    writer: MemoryWriter, path: Path, text: str, reason: str, base: str | None = None
) -> None:
    """Replace the memory file `path` with `text` (parents created); `reason` e.g. "summarizer".
    `base`, the content `text` was made from: lines appended to the file since are kept."""
    target = Path(path)
    private_dirs(target.parent)
    FileService(writer).write(target, text, source=reason, allow_shrink=True, base=base)
