"""One index, many processes: one writer at a time, and a change marker readers follow.

Every process on a memory (the app, `remecli serve`, `remecli mcp`, `remecli job`, …) opens the
same `index/` folder. A process changes it only while holding `index/writer.lock` (the one lock
primitive, `remecli.notes.locks.FileLock`), and after each committed change it rewrites
`index/generation`: `<epoch> <generation>`. A new generation means "new rows and documents:
refresh your searcher and vectors"; a new epoch means "the parts were deleted and rebuilt:
reopen them". Readers compare the marker before each search (one small file read).

A process that wrote a file announces it (`index/written/`, one small file per path) before it
waits for the lock, and whoever holds the lock next reads every announced file in its one commit:
under load, writers queued behind each other find their files indexed and commit nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from remecli.config.privacy import private_dirs
from remecli.notes.atomic_write import atomic_write_text
from remecli.notes.locks import FileLock

WRITER_LOCK = "writer.lock"
EMBED_LOCK = "embed.lock"  # one process embeds at a time (the others' chunks wait a sync)
MARKER = "generation"
ANNOUNCED = "written"  # files written by some process, not read into the index yet
_POLL_SECONDS = 0.05
FIRST_EPOCH = "0"  # the parts as first created (every rebuild draws a new one)


@dataclass(frozen=True, slots=True)
class Marker:
    """What a reader last saw: the rebuild epoch and the change generation ("": none yet)."""

    epoch: str = FIRST_EPOCH
    generation: str = ""


class SharedIndex:
    """The cross-process side of an index folder: its writer lock and its change marker."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @property
    def marker_file(self) -> Path:
        """`index/generation`."""
        return self.folder / MARKER

    def read(self) -> Marker:
        """The marker now on disk (an empty one when there is none, or it cannot be read)."""
        try:
            words = self.marker_file.read_text(encoding="ascii").split()
        except (OSError, UnicodeDecodeError):
            return Marker()
        return Marker(*words[:2]) if len(words) >= 2 else Marker()

    def bump(self, *, rebuilt: bool = False) -> Marker:
        """Announce a committed change (`rebuilt`: the parts were recreated); call it while
        holding the writer lock. Written atomically: a reader sees the old or the new marker."""
        epoch = uuid.uuid4().hex if rebuilt else self.read().epoch
        marker = Marker(epoch, uuid.uuid4().hex)
        atomic_write_text(
            self.marker_file, f"{marker.epoch} {marker.generation}\n", encoding="ascii"
        )
        return marker

    def announce(self, rel: str) -> None:
        """Say that the file `rel` (relative to the working dir) was written: the next writer
        reads it too. Best effort: the writing process syncs it itself anyway."""
        folder = self.folder / ANNOUNCED
        name = hashlib.sha1(rel.encode("utf-8")).hexdigest()
        with contextlib.suppress(OSError):
            atomic_write_text(folder / name, rel, new_mode=0o600)  # private folder and file

    def announced(self) -> bool:
        """True when some announced file waits for a writer."""
        try:
            return any(not e.name.startswith(".") for e in os.scandir(self.folder / ANNOUNCED))
        except OSError:
            return False

    def take_announced(self) -> set[str]:
        """The files announced since the last take, forgotten now (call with the writer lock)."""
        taken: set[str] = set()
        try:
            entries = list(os.scandir(self.folder / ANNOUNCED))
        except OSError:
            return taken
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                rel = Path(entry.path).read_text(encoding="utf-8")
                os.unlink(entry.path)
            except (OSError, UnicodeDecodeError):
                continue
            if rel and not rel.startswith("/") and ".." not in rel.split("/"):
                taken.add(rel)
        return taken

    def writer(self, timeout: float | None = None) -> contextlib.AbstractContextManager[bool]:
        """Hold the writer lock for the block (True); with a `timeout`, give up after that
        many seconds and run the block without it (False)."""
        return self._hold(WRITER_LOCK, timeout)

    def embedding(self) -> contextlib.AbstractContextManager[bool]:
        """Hold the embedding lock for the block if it is free now (True), else False."""
        return self._hold(EMBED_LOCK, 0.0)

    @contextlib.contextmanager
    def _hold(self, name: str, timeout: float | None) -> Iterator[bool]:
        private_dirs(self.folder)
        lock = FileLock(self.folder / name)
        if timeout is None:
            with lock:
                yield True
            return
        deadline = time.monotonic() + timeout
        while not lock.acquire(blocking=False):
            if time.monotonic() >= deadline:
                yield False
                return
            time.sleep(_POLL_SECONDS)
        try:
            yield True
        finally:
            lock.release()
