"""The parts of a search index owned by one process: following other processes' changes,
checking them, rebuilding them when damaged (the base of `MemoryIndex`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from pathlib import Path

from remecli.search.parts import CORRUPTION_ERRORS as DAMAGE
from remecli.search.parts import IndexParts, fresh_parts
from remecli.search.sharing import Marker, SharedIndex
from remecli.search.sync import Syncer

log = logging.getLogger("remecli.search.index")


class OwnedParts:
    """What `MemoryIndex` sets up: its folder, shared marker, syncer, parts and locks."""

    folder: Path
    shared: SharedIndex
    syncer: Syncer
    parts: IndexParts
    recovered: str
    _seen: Marker
    _write_lock: threading.RLock
    _parts_lock: threading.RLock

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

    def _open_existing(self) -> IndexParts:
        """The parts on disk as they are (raises one of DAMAGE when they cannot be read)."""
        return IndexParts.open(self.folder, self._meta(), self._embedder_key())

    def check_and_recover_blocking(self) -> bool:
        """Check the parts; if damaged, rebuild (keyword side first). True if it was damaged."""
        with self._write_lock:
            try:
                with self._parts_lock:
                    self.parts.check()
                return False
            except DAMAGE as exc:
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
