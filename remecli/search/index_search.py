"""Searching a `MemoryIndex`: one `SearchRequest`, resolved against the settings, ranked over
the open parts (`searching.py`); the first search of an `embed_on_demand` index loads the model.
A damaged index is rebuilt and searched again; a full disk or a closed index answers nothing."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

import numpy as np

from remecli.search.calibration import Calibration
from remecli.search.decompose import sub_queries
from remecli.search.embedding_pass import EmbeddingPasses
from remecli.search.filters import make_filters
from remecli.search.hits import SearchHit
from remecli.search.parts import CORRUPTION_ERRORS as DAMAGE
from remecli.search.query_vectors import QueryVectors
from remecli.search.request import SearchRequest
from remecli.search.searching import search_parts
from remecli.search.types import SearchVariant, SyncReport

log = logging.getLogger("remecli.search.index")


class IndexSearch(EmbeddingPasses):
    """The search side of `MemoryIndex` (set up by its constructor)."""

    queries: QueryVectors | None  # query embeddings (None: keyword only)
    calibration: Calibration | None  # the vector side's absolute scale
    _embedding_thread: threading.Thread | None
    sync_blocking: Callable[..., SyncReport]  # `IndexSync`'s (a `MemoryIndex` is both)

    def search_blocking(self, request: SearchRequest) -> list[SearchHit]:
        """Hybrid search of `request`, best first, in this thread (a None limit or floor takes
        the settings' default: `SearchRequest.resolved`)."""
        return self._search(request.resolved(self.settings), SearchVariant(self.settings))

    def search_variant_blocking(
        self, request: SearchRequest, variant: SearchVariant
    ) -> list[SearchHit]:
        """`request` ranked by a variant (other settings, parts off): for measuring only."""
        return self._search(request.resolved(self.settings), variant)

    def want_embedding(self, wait: bool = False) -> None:
        """Load the model and embed what the syncs left without vectors: in the background at
        the first search of an `embed_on_demand` index (the search goes on with what is
        there); `wait` (a one-shot search) joins that work."""
        if not self._embedding_wanted.is_set() and self.embedder is not None:
            self._embedding_wanted.set()

            def embed_pending() -> None:
                try:
                    if not self.syncer.stopping.is_set():
                        self._embed(SyncReport(), None)
                        self.load_model()  # when another process was the one embedding
                except Exception:  # the next sync tries again; keyword search works meanwhile
                    log.exception("embedding the chunks left without vectors failed")

            self._embedding_thread = threading.Thread(
                target=embed_pending, name="remecli-embed", daemon=True
            )
            self._embedding_thread.start()
        if wait and self._embedding_thread is not None:
            self._embedding_thread.join()

    def _read_own_writes(self) -> None:
        """Read (keyword side) the files this process wrote that no finished sync has read, or
        wait for the sync reading them: the write's own sync runs in the background and lost
        the race to the next search (a note written through MCP was not found by the search
        that followed it)."""
        if self._writes_read < self._writes and not self.closed:
            try:
                self.sync_blocking(paths=(), embed=False)
            except Exception:  # the search answers from what is indexed; a later sync reads them
                log.warning("reading this process's writes before a search failed", exc_info=True)

    def _search(self, request: SearchRequest, variant: SearchVariant) -> list[SearchHit]:
        filters = make_filters(request.source, request.since, request.until)
        if not request.query.strip():
            return []
        self._read_own_writes()
        self.want_embedding()
        embed = self._query_vectors(request, variant)
        for attempt in (1, 2):
            try:
                with self._parts_lock:  # not closed meanwhile: closed parts are not damage
                    if self.closed:
                        return []
                    self.follow_others()
                    asked = (request, filters, variant, embed, self._query_failed)
                    return search_parts(self.parts, *asked, self.calibration)
            except DAMAGE as exc:
                if self.space.full(exc):  # not damage: what is indexed stays
                    return []
                if attempt == 2:
                    log.exception("search failed after rebuilding the index")
                    return []
                with self._write_lock:
                    self._rebuild(f"search index at {self.folder} failed ({exc}); rebuilding it")
        return []

    def _query_failed(self, error: str) -> None:
        self.syncer.last_error = error
        log.warning("query embedding failed, using keyword search only: %s", error)

    def _query_vectors(
        self, request: SearchRequest, variant: SearchVariant
    ) -> Callable[[str], np.ndarray] | None:
        """What the search calls for query embeddings (None: keyword only): computed before it
        takes the parts lock once the index has vectors (until then no search loads a model)."""
        vectors = self.parts.vectors
        if self.queries is None or not variant.use_vector or vectors is None or not len(vectors):
            return self.queries
        parts = sub_queries(request.query) if variant.settings.query_parts else []
        return self.queries.ahead([request.query, *parts])

    async def search(self, request: SearchRequest) -> list[SearchHit]:
        """Hybrid search of `request`, best first, in a worker thread (`search_blocking`)."""
        return await asyncio.to_thread(self.search_blocking, request)
