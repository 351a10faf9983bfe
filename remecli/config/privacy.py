"""Keeping the working dir private: it holds conversations, so it and everything in it is
readable by the user only (folders 0700, files 0600 — the user's own bits kept, group and other
bits removed). Symlinks are never followed."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

OPEN_BITS = 0o077  # group and other
PRIVATE_FOLDER_MODE = 0o700


def private_dirs(folder: Path, stop: Path | None = None) -> Path:
    """Create `folder` and its missing parents, each 0700 (below `stop` when given): the one
    way remecli makes a folder under its memory and state dirs (a plain `mkdir` gives 0755).
    Folders that exist keep their mode. Returns `folder`."""
    missing: list[Path] = []
    current = Path(folder)
    while not current.is_dir() and current != stop and current != current.parent:
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        try:
            os.mkdir(path, PRIVATE_FOLDER_MODE)
        except FileExistsError:
            if not path.is_dir():
                raise
            continue  # made meanwhile (another thread or process): its maker set its mode
        os.chmod(path, PRIVATE_FOLDER_MODE)  # exactly 0700 whatever the umask
    return folder


def is_private(path: Path) -> bool:
    """True when `path` gives nothing to group or other (or does not exist)."""
    try:
        return not stat.S_IMODE(path.lstat().st_mode) & OPEN_BITS
    except OSError:
        return True


def make_private(root: Path, *, below: bool = True) -> int:
    """Take group and other permissions off `root` and (with `below`) everything under it;
    returns how many entries changed. Entries that cannot be changed are skipped and logged."""
    changed = _tighten(str(root))
    if below and root.is_dir() and not root.is_symlink():
        changed += _tighten_below(str(root))
    return changed


def _tighten_below(folder: str) -> int:
    changed = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_IMODE(info.st_mode) & OPEN_BITS and not stat.S_ISLNK(info.st_mode):
                    changed += _tighten(entry.path, stat.S_IMODE(info.st_mode))
                if stat.S_ISDIR(info.st_mode):
                    changed += _tighten_below(entry.path)
    except OSError as exc:
        log.info("could not look inside %s: %s", folder, exc)
    return changed


def tighten_working_dir(root: Path) -> str:
    """Make a working dir that existed with looser modes private, everything in it included.
    Returns the line that says so ("" when it was private already or does not exist)."""
    if not root.is_dir() or is_private(root):
        return ""
    changed = make_private(root)
    note = (
        f"{root} was readable by other users; made it and the {changed - 1} entries in it "
        "private (folders 0700, files 0600): it holds your conversations"
    )
    log.warning(note)
    return note


def tighten_derived(root: Path) -> int:
    """Make what other parts create with the usual umask private again: everything under
    `index/` (the search engine's files) and the folders directly in the working dir and in
    `sessions/` (cheap: a few dozen entries); returns how many changed."""
    changed = make_private(root / "index")
    for folder in (root, root / "sessions"):
        try:
            children = list(folder.iterdir())
        except OSError:
            continue
        changed += sum(make_private(child, below=False) for child in children)
    return changed


def _tighten(path: str, mode: int | None = None) -> int:
    try:
        if mode is None:
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                return 0
            mode = stat.S_IMODE(info.st_mode)
        if not mode & OPEN_BITS:
            return 0
        os.chmod(path, mode & ~OPEN_BITS)
    except OSError as exc:
        log.info("could not make %s private: %s", path, exc)
        return 0
    return 1
