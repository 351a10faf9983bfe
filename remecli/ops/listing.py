"""What memory_list sees of a folder: its entries in walk order (folders first at each level,
by name), walked only as far as they are read, each with one stat.

A listing stops at its limit, so a walk below 10,000 notes visits only the first folders. Only
a symlink costs a resolve (a link out of the working dir is not shown); everything else was
reached through real folders inside it (symlinked folders are listed, never walked into).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from remecli.ops.paths import is_private


@dataclass(frozen=True, slots=True)
class Found:
    """One entry of a listing: its path relative to the working dir, kind, size and mtime."""

    relative: str
    folder: bool
    size: int
    mtime: float


def entries(root: Path, folder: Path, recursive: bool) -> Iterator[Found]:
    """The entries of `folder` (resolved, inside the resolved `root`), private ones left out,
    as `os.walk` orders them: each level's folders then files, by name, then each folder's."""
    prefix = len(str(root)) + 1
    for entry in _walk(folder, recursive, prefix):
        relative = entry.path[prefix:].replace(os.sep, "/")
        if is_private(relative):
            continue
        found = _stat(entry, relative, root)
        if found is not None:
            yield found


def _walk(here: Path | str, recursive: bool, prefix: int) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(here) as scan:
            found = sorted(scan, key=lambda entry: entry.name)
    except OSError:  # gone or unreadable meanwhile: nothing to list there
        return
    if not recursive:
        yield from found
        return
    folders = [e for e in found if _is_dir(e) and not is_private(e.path[prefix:])]
    yield from folders + [e for e in found if not _is_dir(e)]
    for entry in folders:
        if not entry.is_symlink():  # never walks into a symlinked folder
            yield from _walk(entry.path, True, prefix)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _stat(entry: os.DirEntry[str], relative: str, root: Path) -> Found | None:
    try:
        if entry.is_symlink():
            resolved = Path(entry.path).resolve()
            if resolved != root and not resolved.is_relative_to(root):
                return None  # a symlink out of the working dir is not shown
            info = resolved.stat()
        else:
            info = entry.stat(follow_symlinks=False)
    except OSError:  # gone meanwhile, or a symlink to nothing: not listed
        return None
    folder = stat.S_ISDIR(info.st_mode)
    return Found(relative + "/" if folder else relative, folder, info.st_size, info.st_mtime)
