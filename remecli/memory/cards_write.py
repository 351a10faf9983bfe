"""The one function through which the summarizer, the day page and dream write memory files.

`write_memory_file` replaces a file atomically (`remecli.atomic_write`). The runtime can point
every such write at another writer (a versioned, redacting one) with `set_memory_writer`; the
writer gets the target path, the new text and a short label saying what made the change.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from remecli.atomic_write import atomic_write_text

MemoryWriter = Callable[[Path, str, str], None]
"""`writer(path, text, reason)`: replace `path` with `text`; `reason` names the writer."""


def _atomic_writer(path: Path, text: str, reason: str) -> None:
    atomic_write_text(path, text)


_writer: MemoryWriter = _atomic_writer


def set_memory_writer(writer: MemoryWriter | None) -> None:
    """Send every memory write through `writer` (None restores the plain atomic writer)."""
    global _writer
    _writer = writer or _atomic_writer


def write_memory_file(path: Path, text: str, reason: str) -> None:
    """Replace the memory file `path` with `text` (parents created); `reason` e.g. "summarizer"."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    _writer(target, text, reason)
