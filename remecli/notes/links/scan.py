"""Which notes are on disk, and what changed since the last look, by `stat` alone.

A full scan stats every note (one `stat` a file). It also records each note folder's mtime: a note
added, removed, renamed or replaced (remecli's writer, git and most editors write a new file and
rename it over the old one) changes its folder's mtime, so `changed()` — one `stat` a folder —
tells which folders to list again without a watcher. A note rewritten in place leaves its folder
as it was: the graph's `check(path)` (a page showing the note asks it) or the next full scan sees
it. A folder changed less than `RACY_NS` before it was listed is listed again next time (a change
within the same mtime tick would otherwise go unseen).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

MEMORY_MD = "MEMORY.md"
NOTE_FOLDERS = ("memory", "digest")
RACY_NS = 2_000_000_000
_MISSING = -1  # a top note folder not there (yet): its creation is a change
Stat = tuple[int, int]


class NoteScan:
    """The notes under `root` with their (mtime_ns, size), and the note folders' mtimes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folders: dict[str, int | None] = {}  # None: list it again whatever its mtime

    def full(self) -> dict[str, Stat]:
        """(mtime_ns, size) of every note on disk: one stat a file, no symlinked folders."""
        self.folders.clear()
        found, _ = self.list(NOTE_FOLDERS)
        memory = file_stat(self.root / MEMORY_MD)
        if memory is not None:
            found[MEMORY_MD] = memory
        return found

    def changed(self) -> list[str]:
        """The known note folders whose mtime moved since they were listed (or that are gone)."""
        return [
            folder
            for folder, stamp in self.folders.items()
            if stamp is None or _folder_stamp(self.root / folder) != stamp
        ]

    def list(self, folders: Iterable[str]) -> tuple[dict[str, Stat], set[str]]:
        """List `folders` again (a subfolder not seen before in full): the notes found, and
        every folder listed (a known note in one of them and not found is gone)."""
        found: dict[str, Stat] = {}
        listed: set[str] = set()
        pending = list(folders)
        while pending:
            folder = pending.pop()
            listed.add(folder)
            stamp = _folder_stamp(self.root / folder)  # before listing: a later change shows
            try:
                entries = list(os.scandir(self.root / folder))
            except OSError:
                if folder in NOTE_FOLDERS:
                    self.folders[folder] = _MISSING if stamp == _MISSING else None
                else:
                    self.folders.pop(folder, None)
                continue
            racy = stamp == _MISSING or time.time_ns() - stamp < RACY_NS
            self.folders[folder] = None if racy else stamp
            for entry in entries:
                relative = f"{folder}/{entry.name}"
                try:
                    if entry.name.startswith("."):
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        if relative not in self.folders:
                            pending.append(relative)
                    elif entry.name.endswith(".md") and entry.is_file():
                        info = entry.stat()
                        found[relative] = (info.st_mtime_ns, info.st_size)
                except OSError:  # gone meanwhile
                    continue
        return found, listed


def file_stat(path: Path) -> Stat | None:
    """(mtime_ns, size) of a regular file (None: missing or not a file)."""
    try:
        info = path.stat()
    except OSError:
        return None
    if not path.is_file():
        return None
    return info.st_mtime_ns, info.st_size


def _folder_stamp(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return _MISSING
