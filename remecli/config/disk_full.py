"""Is this error a full disk? (ENOSPC / EDQUOT from the OS, SQLITE_FULL from SQLite.) A full
disk is neither damage (never rebuild or delete over it) nor a model error: what could not be
written waits until space returns, and the user is told in words."""

from __future__ import annotations

import errno
import os
import re
import sys
from pathlib import Path

_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
_SQLITE_FULL = 13
_FULL_TEXT = re.compile(r"No space left on device|Disk quota exceeded|\bStorageFull\b")


def is_disk_full(exc: BaseException) -> bool:
    """True when `exc` (or what caused it) says the disk or the user's quota is full."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _FULL_ERRNOS:
            return True
        if isinstance(current, ValueError) and _FULL_TEXT.search(str(current)):
            return True  # tantivy's wrapped OS error: "… StorageFull … No space left on device"
        if _is_sqlite_error(current) and (
            getattr(current, "sqlite_errorcode", None) == _SQLITE_FULL
            or "disk is full" in str(current)
        ):
            return True
        current = current.__cause__ or current.__context__
    return False


def _is_sqlite_error(exc: BaseException) -> bool:
    """An error of sqlite3, which only a program that loaded sqlite3 can have: not imported here
    (the TUI's first frame needs no database)."""
    sqlite3 = sys.modules.get("sqlite3")
    return sqlite3 is not None and isinstance(exc, sqlite3.Error)


def disk_full_text(path: object) -> str:
    """The start of what the user reads: `the disk is full (<path>)`."""
    return f"the disk is full ({path})"


def no_space_left(path: Path, margin: int = 64 << 10) -> bool:
    """True when the file system holding `path` has less than `margin` bytes (or no inode)
    free for this user (SQLite reports a full disk as "disk I/O error" when its shared memory cannot grow)."""
    folder = Path(path)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        stats = os.statvfs(folder)
    except OSError:
        return False
    no_inodes = stats.f_files > 0 and stats.f_favail == 0  # no new file can be made
    return stats.f_bavail * stats.f_frsize < margin or no_inodes
