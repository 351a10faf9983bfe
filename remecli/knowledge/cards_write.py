"""The summarizer's, the day page's, dream's and Auto Resource's way to the one memory writer.

`write_memory_file` goes through the working dir's `MemoryWriter` (atomic, versioned, redacting
secrets). The writer gets the target path, the new text and a short label saying what made the
change.
"""

from __future__ import annotations

from pathlib import Path

from remecli.notes.atomic_write import atomic_write_text


def _versioned_writer(path: Path, text: str, reason: str) -> None:
    """The working dir's memory writer: redacted, the previous content kept as a version. The
    callers check their own no-drop rules (cards, day pages), so shrinking is theirs to allow."""
    from remecli.notes.writer import working_dir_of, writer_for

    root = working_dir_of(path)
    if root is None:  # not a memory file (a caller's own scratch file): plain atomic write
        atomic_write_text(path, text)
        return
    writer_for(root).write(path, text, source=reason, allow_shrink=True)


def write_memory_file(path: Path, text: str, reason: str) -> None:
    """Replace the memory file `path` with `text` (parents created); `reason` e.g. "summarizer"."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    _versioned_writer(target, text, reason)
