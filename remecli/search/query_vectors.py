"""The embeddings of search queries: the last few remembered (agents repeat them), and computed
before a search takes its index's parts lock, so a query embedding that is slow (the local model
on a loaded machine: seconds) holds up no other search, and a keyword hit never waits for
another query's embedding."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from remecli.search.embedders import Embedder, EmbeddingError

KEPT = 256  # queries remembered


class QueryVectors:
    """Query embeddings of one embedder; `key()` names its model and dimensions."""

    def __init__(self, embedder: Embedder, key: Callable[[], str]) -> None:
        self.embedder = embedder
        self.key = key
        self._cache: dict[tuple[str, str], np.ndarray] = {}
        self._lock = threading.Lock()  # the cache only, never held while embedding

    def __call__(self, query: str) -> np.ndarray:
        """The query's embedding (remembered, or computed now)."""
        key = (self.key(), query)
        with self._lock:
            vector = self._cache.get(key)
        if vector is None:
            vector = self.embedder.embed_query(query)
            with self._lock:
                self._cache[key] = vector
                if len(self._cache) > KEPT:  # the oldest goes
                    self._cache.pop(next(iter(self._cache)))
        return vector

    def ahead(self, queries: list[str]) -> Callable[[str], np.ndarray]:
        """Embed `queries` now (no lock held); what the search then calls for the vectors: these
        from memory, or, when embedding failed, the error again (the search reports it and goes
        on by keyword) without trying again."""
        try:
            for query in queries:
                self(query)
        except EmbeddingError as exc:
            error = exc

            def failed(_query: str) -> np.ndarray:
                raise error

            return failed
        return self
