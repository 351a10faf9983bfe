"""Derived and private files of the memory package (states, pending records, tool outputs):
the atomic writer, and the mode they are created with.

Memory files themselves (`MEMORY.md`, `memory/**`, `digest/**`) are written by
`remecli.notes.writer.MemoryWriter` only (versioned, secrets redacted).
"""

from __future__ import annotations

from remecli.notes.atomic_write import PRIVATE_FILE_MODE, atomic_write_text

__all__ = ["PRIVATE_FILE_MODE", "atomic_write_text"]
