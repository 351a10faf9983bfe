"""Atomic file replacement: the one implementation every writer of user files goes through.

A crash (even kill -9) at any moment leaves either the old file or the new one, never a
half-written file: the data goes to a temp file in the same folder, is fsynced, then renamed
over the target with `os.replace`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from pathlib import Path

TEMP_SUFFIX = ".tmp"
PRIVATE_FILE_MODE = 0o600  # conversations, states, records: readable by the user only


def atomic_write_bytes(path: Path | str, data: bytes, *, new_mode: int | None = None) -> None:
    """Replace `path` with `data` atomically.

    A symlink is followed (its target is replaced, the link stays); an existing file keeps its
    permission bits, a new one gets `new_mode` (default: the usual umask-based mode). Missing
    parents are created.
    """
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = new_mode if new_mode is not None else 0o666 & ~_current_umask()
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(target.parent)


def atomic_write_text(
    path: Path | str, text: str, *, encoding: str = "utf-8", new_mode: int | None = None
) -> None:
    """Replace `path` with `text` atomically (newlines written as given)."""
    atomic_write_bytes(path, text.encode(encoding), new_mode=new_mode)


def remove_stale_temp_files(folder: Path, older_than_s: float = 3600.0) -> int:
    """Delete temp files a killed writer left behind (`.<name>.<random>.tmp`); returns the count."""
    if not folder.is_dir():
        return 0
    cutoff = time.time() - older_than_s
    removed = 0
    for tmp in folder.rglob(f".*{TEMP_SUFFIX}"):
        with contextlib.suppress(OSError):
            if tmp.is_file() and tmp.stat().st_mtime < cutoff:
                tmp.unlink()
                removed += 1
    return removed


def _current_umask() -> int:
    """The process umask, read without changing it (setting it, even for a moment, would let
    files other threads create meanwhile be world-writable)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return _UMASK_AT_IMPORT


def _read_umask_once() -> int:
    mask = os.umask(0o022)  # at import, before any writer thread exists
    os.umask(mask)
    return mask


_UMASK_AT_IMPORT = _read_umask_once()


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
