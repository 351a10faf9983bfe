"""The second pass of a sync: vectors for the chunks the keyword pass committed without one.

A sync commits the keyword side of the changed files and announces it (other processes'
searches find the new words at once); this pass then embeds in its own time. It holds the
index's write lock only to read what is pending and to store the vectors, never while the
model runs: a write's keyword commit never queues behind the embedding of an earlier one (the
local model takes seconds per card on a loaded machine). One pass runs at a time per process
(and per folder, `SharedIndex.embedding`); a sync that commits while one runs leaves its chunks
to that pass's next round.
"""

from __future__ import annotations

import threading

from remecli.config.search import SearchSettings
from remecli.search.embedders import Embedder, is_loaded
from remecli.search.embedding_sync import compute, embedding_work, store_vectors
from remecli.search.index_parts import OwnedParts
from remecli.search.sync import Progress
from remecli.search.types import SyncReport


class EmbeddingPasses(OwnedParts):
    """The embedding side of `MemoryIndex` (set up by its constructor)."""

    settings: SearchSettings
    embedder: Embedder | None
    _embedding_wanted: threading.Event  # unset: a model not loaded yet waits for a search
    _embedding: threading.Lock  # held by the pass running in this process
    _embedding_due: threading.Event  # chunks were committed since the running pass read

    def _embed(self, report: SyncReport, progress: Progress | None) -> None:
        """Embed the chunks without a vector, unless another process is embedding (then they
        wait for the next sync: keyword search finds them meanwhile) or another thread of this
        one is (it runs one more round for them); announce the vectors. With
        `embed_on_demand`, a model not loaded yet waits for the first search."""
        if self.embedder is None:
            return
        if not self._embedding_wanted.is_set() and not is_loaded(self.embedder):
            return
        self._embedding_due.set()
        while self._embedding_due.is_set() and self._embedding.acquire(blocking=False):
            try:
                self._embedding_due.clear()
                if self.closed or self.syncer.stopping.is_set():
                    return
                with self.space.waited_out(), self.shared.embedding() as mine:
                    if mine:
                        self._embed_once(self.embedder, report, progress)
            finally:
                self._embedding.release()

    def _embed_once(
        self, embedder: Embedder, report: SyncReport, progress: Progress | None
    ) -> None:
        """Read what waits (write lock held), embed it (no lock), store it (write lock held)."""
        with self._write_lock:
            if self.closed:
                return
            self.follow_others()
            parts = self.parts
            work = embedding_work(parts, embedder, self.settings)
        if work is None:
            return
        stopping = self.syncer.stopping
        error = compute(work, embedder, self.settings, report, stopping, progress)
        self.syncer.last_error = error or self.syncer.last_error
        with self._write_lock, self.shared.writer():
            self.follow_others()
            if self.closed or self.parts is not parts:  # rebuilt meanwhile: the next sync
                return
            if store_vectors(parts, self.settings, work):
                self._seen = self.shared.bump()

    def load_model(self) -> None:
        """Load a local model now if it is not loaded yet (nothing for an API embedder): a
        process whose chunks another process embeds still embeds its queries, and its searches
        then never wait for the load (10-25 s on a loaded machine)."""
        if self.embedder is not None and not is_loaded(self.embedder):
            self.embedder.embed_query("query")

    def wait_for_embedding(self) -> None:
        """Wait for the pass running in this process, if any (it stops after its current batch
        once `syncer.stopping` is set, and stores what it embedded)."""
        with self._embedding:
            pass
