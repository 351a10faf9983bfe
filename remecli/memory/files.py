"""The one place that writes memory files: atomic replace for whole files, append for logs."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def atomic_write_text(path: Path | str, text: str, *, encoding: str = "utf-8") -> None:
    """Write `text` to `path` atomically: temp file in the same folder, fsync, `os.replace`.

    A crash (even kill -9) at any moment leaves either the old file or the new one, never a
    half-written file. Parent folders are created when missing.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


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
    with open(target, "a", encoding="utf-8", newline="") as out:
        out.write(payload)
        out.flush()
        if fsync:
            os.fsync(out.fileno())


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
