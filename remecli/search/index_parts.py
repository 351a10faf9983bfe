"""The parts of a search index owned by one process: following other processes' changes (and
being ready to), checking them, rebuilding them when damaged (the base of `MemoryIndex`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from pathlib import Path

from remecli.search.chunker import MarkdownChunker
from remecli.search.parts import CORRUPTION_ERRORS as DAMAGE
from remecli.search.parts import IndexParts, fresh_parts
from remecli.search.sharing import Marker, SharedIndex
from remecli.search.space_wait import SpaceWait
from remecli.search.sync import Syncer

log = logging.getLogger("remecli.search.index")
INDEX_FOLDER = "index"  # the index's folder in the working dir (never indexed itself)
CLOSE_READ_BYTES = 4 * 1024 * 1024  # what an exiting process reads of the files it wrote


class OwnedParts:
    """What `MemoryIndex` sets up: its folder, shared marker, syncer, parts and locks."""

    folder: Path
    chunker: MarkdownChunker
    shared: SharedIndex
    space: SpaceWait
    syncer: Syncer
    parts: IndexParts
    recovered: str
    closed: bool  # `close()` was called: syncs, searches and checks do nothing
    _seen: Marker
    _write_lock: threading.RLock
    _parts_lock: threading.RLock
    _written: set[str]  # files this process wrote, read by the next sync holding the lock
    _written_lock: threading.Lock
    _writes: int  # how many writes this process noted (`note_written`)
    _writes_read: int  # how many of them a finished sync has read (`IndexSearch` waits for it)
    working_dir: Path
    _read_budget: int | None = None  # set by close(): written files read past it stay announced

    def _meta(self) -> dict[str, str]:
        raise NotImplementedError

    def _embedder_key(self) -> str:
        raise NotImplementedError

    def follow_others(self) -> None:
        """Catch up with other processes' committed changes (a new marker): refresh the
        searcher and vectors, or reopen the parts after another process rebuilt them."""
        marker = self.shared.read()
        if marker == self._seen:
            return
        with self._parts_lock:
            if marker.epoch != self._seen.epoch:
                self.parts.close()
                self.parts = self._open_existing()
            else:
                self.parts.refresh()
            self._seen = marker

    def stats(self) -> dict[str, int]:
        """Counts: files, chunks, vectors."""
        parts = self.parts
        return {
            "files": len(parts.store.files()),
            "chunks": parts.store.chunk_count(),
            "vectors": len(parts.vectors) if parts.vectors is not None else 0,
        }

    def note_written(self, rel: str) -> None:
        """A file this process wrote (any thread): the next sync that holds the writer lock, in
        this process or another, reads it too (a card and its day page share one commit)."""
        with self._written_lock:
            self._written.add(rel)
            self._writes += 1
        self.shared.announce(rel)  # whichever process writes next reads it too

    def _take_written(self) -> set[str]:
        """Files written here and announced by any process (writer lock held). Past
        `_read_budget` (an exiting process) the biggest stay announced: the next sync of any
        process, or the next start, reads them (a 50 MB MEMORY.md took the exit a minute)."""
        with self._written_lock:
            taken, self._written = self._written, set()
        taken |= self.shared.take_announced()
        if self._read_budget is None:
            return taken
        kept: set[str] = set()
        left = self._read_budget
        for size, rel in sorted((_size(self.working_dir / rel), rel) for rel in taken):
            if size <= left:
                kept.add(rel)
                left -= size
            else:
                self.shared.announce(rel)
        return kept

    def _nothing_to_read(self, only: set[str]) -> bool:
        """True when every path of `only` is indexed as it is on disk and no written file waits
        (here or announced): a sync of them (another process was first) needs no writer lock, so the
        watchers of every process do not queue behind the commits of the one that wrote."""
        with self._written_lock:
            if self._written or self.shared.announced():
                return False
        self.follow_others()
        with self._parts_lock:
            return not self.syncer.stale(self.parts, only)

    def prepare_to_follow(self) -> None:
        """Load now what reading a changed file needs: the chunker's token encoding (1–3 s of
        CPU, ~80 MB; 10 s and more on a loaded machine). A long-lived process calls it before
        it says it is ready (`open(long_lived=True)`); else its first sync pays the load while holding the writer lock
        that every other process's sync waits on (the first card took 10–40 s to be seen)."""
        count, _, _ = self.chunker.token_functions()
        count("prepare")

    def _open_existing(self) -> IndexParts:
        """The parts on disk as they are (raises one of DAMAGE when they cannot be read)."""
        return IndexParts.open(self.folder, self._meta(), self._embedder_key())

    def check_and_recover_blocking(self) -> bool:
        """Check the parts; if damaged, rebuild (keyword side first). True if it was damaged."""
        with self._write_lock:
            if self.closed:
                return False
            try:
                with self._parts_lock:
                    self.parts.check()
                return False
            except DAMAGE as exc:
                if self.space.full(exc):  # not damage: never deleted over a full disk
                    return False
                self._rebuild(f"search index at {self.folder} is damaged ({exc}); rebuilding it")
                return True

    async def check_and_recover(self) -> bool:
        """`check_and_recover_blocking` off the event loop."""
        return await asyncio.to_thread(self.check_and_recover_blocking)

    def _rebuild(self, note: str) -> None:
        """Delete the damaged parts, reopen empty, index keywords now; embeddings follow.
        Another process that rebuilt meanwhile (a new epoch) spares us doing it again."""
        with self.shared.writer():
            epoch = self.shared.read().epoch
            if epoch != self._seen.epoch and self._reopen():
                return
            log.warning(note)
            self.recovered = note
            self._replace_parts()
            self.syncer.sync(self.parts, embed=False)
            self._seen = self.shared.bump(rebuilt=True)

    def _replace_parts(self) -> None:
        """Close the parts and open new, empty ones (writer lock held)."""
        with self._parts_lock:
            with contextlib.suppress(*DAMAGE):
                self.parts.close()
            self.parts = fresh_parts(self.folder, self._meta(), self._embedder_key())

    def _reopen(self) -> bool:
        """Open the parts another process rebuilt (writer lock held); False if damaged too."""
        with self._parts_lock:
            with contextlib.suppress(*DAMAGE):
                self.parts.close()
            try:
                self.parts = self._open_existing()
            except DAMAGE:
                return False
            self._seen = self.shared.read()
        return True


def _size(path: Path) -> int:
    """The size of a file in bytes (0 when it is gone: its removal costs nothing to read)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0
