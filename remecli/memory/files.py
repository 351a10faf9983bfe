"""The one place that writes memory files: atomic replace for whole files, append for logs."""

from __future__ import annotations

import os
from pathlib import Path

from remecli.atomic_write import PRIVATE_FILE_MODE, atomic_write_text

__all__ = ["PRIVATE_FILE_MODE", "append_lines", "atomic_write_text", "create_if_missing"]


def create_if_missing(path: Path | str, text: str, *, encoding: str = "utf-8") -> bool:
    """Create `path` with `text` only if it does not exist (never overwrites); True if created."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding=encoding, newline="") as out:
        out.write(text)
    return True


def append_lines(path: Path | str, lines: list[str], *, fsync: bool = False) -> None:
    """Append `lines` (each without its newline) to an append-only log such as a transcript.

    One `write` call per batch, so a crash leaves at most one truncated last line, which
    readers skip.
    """
    if not lines:
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = "".join(line + "\n" for line in lines)
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE_FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
        out.write(payload)
        out.flush()
        if fsync:
            os.fsync(out.fileno())
