"""The vector side: an in-memory inner-product index with stable chunk ids.

Vectors are L2-normalized, so inner product is cosine similarity. The vectors themselves are
persisted in the chunk store; this index is rebuilt from there when the index is opened.

The rows live in one growable float32 matrix (capacity grows by half), with a chunk id → row map:
adding appends (or overwrites a known id's row), removing moves the last row into the hole, so
both cost O(batch), not O(n) as faiss's IndexIDMap did (it compacts every row on each remove,
and an add removes first: 7 ms each at 100k chunks). The scan itself is faiss's exhaustive
inner-product kernel over that matrix, imported at the first search (~40 MB an idle app with
nothing to search never loads).
"""

from __future__ import annotations

import threading

import numpy as np

_pinned = threading.local()  # per thread: faiss's OpenMP thread count has been set here


def _one_faiss_thread() -> None:
    """Pin faiss to one OpenMP thread in the calling thread.

    `omp_set_num_threads` only reaches the thread that calls it, and searches run in worker
    threads (asyncio.to_thread), so it is set where the search runs. One query is memory-bound:
    more OpenMP threads only add spin-waits on a busy 2-core machine (92 ms p50 with 2 threads
    vs 24 ms with 1 at 100k chunks)."""
    if not getattr(_pinned, "done", False):
        import faiss

        faiss.omp_set_num_threads(1)
        _pinned.done = True


class VectorIndex:
    """Add/remove vectors by chunk id; top-k by cosine similarity."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._rows = np.zeros((0, dimensions), dtype=np.float32)  # capacity; first _count used
        self._ids = np.zeros(0, dtype=np.int64)  # row → chunk id
        self._row_of: dict[int, int] = {}  # chunk id → row
        self._count = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._count

    def add(self, ids: list[int], vectors: np.ndarray) -> None:
        """Add (or replace) vectors under chunk ids; O(len(ids)) amortised."""
        if not ids:
            return
        matrix = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(ids), self.dimensions)
        last_of = {int(chunk_id): k for k, chunk_id in enumerate(ids)}  # a repeated id: last wins
        with self._lock:
            known = [(k, self._row_of[i]) for i, k in last_of.items() if i in self._row_of]
            if known:
                self._rows[[row for _, row in known]] = matrix[[k for k, _ in known]]
            new = [(i, k) for i, k in last_of.items() if i not in self._row_of]
            if not new:
                return
            start = self._count
            self._reserve(start + len(new))
            end = start + len(new)
            self._rows[start:end] = matrix[[k for _, k in new]]
            self._ids[start:end] = [i for i, _ in new]
            self._row_of.update((i, start + n) for n, (i, _) in enumerate(new))
            self._count = end

    def _reserve(self, needed: int) -> None:
        """Grow the matrix (by half its size at least) so `needed` rows fit."""
        capacity = len(self._ids)
        if needed <= capacity:
            return
        capacity = max(needed, capacity + capacity // 2, 64)
        rows = np.zeros((capacity, self.dimensions), dtype=np.float32)
        rows[: self._count] = self._rows[: self._count]
        ids = np.zeros(capacity, dtype=np.int64)
        ids[: self._count] = self._ids[: self._count]
        self._rows, self._ids = rows, ids

    def ids(self) -> set[int]:
        """The chunk ids that have a vector here."""
        with self._lock:
            return set(self._row_of)

    def remove(self, ids: list[int]) -> None:
        """Drop the vectors of these chunk ids (unknown ids are ignored); O(len(ids))."""
        if not ids:
            return
        with self._lock:
            for chunk_id in ids:
                row = self._row_of.pop(int(chunk_id), None)
                if row is None:
                    continue
                last = self._count - 1
                if row != last:  # the last row fills the hole
                    moved = int(self._ids[last])
                    self._rows[row] = self._rows[last]
                    self._ids[row] = moved
                    self._row_of[moved] = row
                self._count = last
            self._shrink()

    def _shrink(self) -> None:
        """Give memory back when at most a quarter of the capacity is used."""
        capacity = len(self._ids)
        if capacity > 64 and self._count <= capacity // 4:
            keep = max(2 * self._count, 64)
            self._rows = self._rows[:keep].copy()
            self._ids = self._ids[:keep].copy()

    def scores_of(self, query: np.ndarray, ids: list[int]) -> list[tuple[int, float]]:
        """(chunk id, cosine) for given ids that have a vector (to score the other side's hits)."""
        q = np.asarray(query, dtype=np.float32).reshape(self.dimensions)
        with self._lock:
            known = [(i, self._row_of[i]) for i in ids if i in self._row_of]
            if not known:
                return []
            scores = self._rows[[row for _, row in known]] @ q
        return [(i, float(s)) for (i, _), s in zip(known, scores, strict=True)]

    def search(
        self, query: np.ndarray, limit: int, allowed: list[int] | None = None
    ) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the `limit` nearest vectors (among `allowed` ids if given)."""
        import faiss

        _one_faiss_thread()
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dimensions)
        with self._lock:
            if limit <= 0 or self._count == 0 or (allowed is not None and not allowed):
                return []
            if allowed is None:
                matrix, row_ids = self._rows[: self._count], self._ids
            else:
                rows = [self._row_of[i] for i in set(allowed) if i in self._row_of]
                if not rows:
                    return []
                matrix, row_ids = self._rows[rows], self._ids[rows]
            k = min(limit, len(matrix))
            scores, found = faiss.knn(q, matrix, k, metric=faiss.METRIC_INNER_PRODUCT)
            return [
                (int(row_ids[r]), float(s))
                for r, s in zip(found[0], scores[0], strict=True)
                if r >= 0
            ]
