"""In-memory vector partitions of the local store: one growable float32 matrix per
(memory_type, memory_target), so a search scans only its target (100k rows ≈ 10 ms)."""

from __future__ import annotations

import threading
from collections.abc import Iterable

import numpy as np
from threadpoolctl import ThreadpoolController

Key = tuple[str, str]

# A matrix-vector product is memory-bound: BLAS threads only add synchronization (measured on a
# busy 2-core machine, 10k x 384: 29 ms with OpenBLAS threads, 1.7 ms with one). The limit is
# process-wide while it lasts, so one lock keeps save/restore of the thread count consistent.
_BLAS = ThreadpoolController()
_BLAS_LOCK = threading.Lock()


class _Partition:
    """Rows of one target: seq ids and vectors, compacted on delete (swap with the last row)."""

    def __init__(self, dimensions: int) -> None:
        self.matrix = np.zeros((16, dimensions), dtype=np.float32)
        self.seqs = np.zeros(16, dtype=np.int64)
        self.size = 0
        self.row_of: dict[int, int] = {}

    def put(self, seq: int, vector: np.ndarray) -> None:
        row = self.row_of.get(seq)
        if row is None:
            if self.size == len(self.seqs):
                self.matrix = np.concatenate([self.matrix, np.zeros_like(self.matrix)])
                self.seqs = np.concatenate([self.seqs, np.zeros_like(self.seqs)])
            row = self.size
            self.size += 1
            self.row_of[seq] = row
            self.seqs[row] = seq
        self.matrix[row] = vector

    def remove(self, seq: int) -> None:
        row = self.row_of.pop(seq, None)
        if row is None:
            return
        last = self.size - 1
        if row != last:
            moved = int(self.seqs[last])
            self.matrix[row] = self.matrix[last]
            self.seqs[row] = moved
            self.row_of[moved] = row
        self.size = last

    def scores(self, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with _BLAS_LOCK, _BLAS.limit(limits=1, user_api="blas"):
            return self.seqs[: self.size], self.matrix[: self.size] @ vector


class VectorPartitions:
    """All vectors of a local store, by target. Not thread-safe: the store holds its lock."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._parts: dict[Key, _Partition] = {}
        self._key_of: dict[int, Key] = {}

    def put(self, key: Key, seq: int, vector: np.ndarray) -> None:
        """Insert or replace the vector of `seq` (moving it if its target changed)."""
        old = self._key_of.get(seq)
        if old is not None and old != key:
            self.remove(seq)
        self._parts.setdefault(key, _Partition(self.dimensions)).put(seq, vector)
        self._key_of[seq] = key

    def load(self, key: Key, seqs: np.ndarray, matrix: np.ndarray) -> None:
        """Replace the rows of target `key` in one go (used when a store is opened)."""
        part = _Partition(self.dimensions)
        capacity = max(16, len(seqs))
        part.matrix = np.zeros((capacity, self.dimensions), dtype=np.float32)
        part.matrix[: len(seqs)] = matrix
        part.seqs = np.zeros(capacity, dtype=np.int64)
        part.seqs[: len(seqs)] = seqs
        part.size = len(seqs)
        part.row_of = {int(seq): row for row, seq in enumerate(seqs)}
        self._parts[key] = part
        self._key_of.update(dict.fromkeys(part.row_of, key))

    def remove(self, seq: int) -> None:
        """Forget `seq` (no-op when unknown)."""
        key = self._key_of.pop(seq, None)
        if key is not None:
            self._parts[key].remove(seq)

    def clear(self) -> None:
        """Forget everything."""
        self._parts.clear()
        self._key_of.clear()

    def search(
        self,
        vector: np.ndarray,
        keys: Iterable[Key] | None,
        allowed: set[int] | None,
        limit: int,
    ) -> list[tuple[int, float]]:
        """(seq, cosine) of the best `limit` rows in `keys` (all when None), within `allowed`."""
        chosen = list(self._parts) if keys is None else [k for k in keys if k in self._parts]
        allowed_seqs = None if allowed is None else np.fromiter(allowed, np.int64, len(allowed))
        seq_parts, score_parts = [], []
        for key in chosen:
            seqs, scores = self._parts[key].scores(vector)
            if allowed_seqs is not None:
                mask = np.isin(seqs, allowed_seqs)
                seqs, scores = seqs[mask], scores[mask]
            seq_parts.append(seqs)
            score_parts.append(scores)
        if not seq_parts:
            return []
        seqs = np.concatenate(seq_parts)
        scores = np.concatenate(score_parts)
        if len(scores) > limit:
            top = np.argpartition(-scores, limit - 1)[:limit]
            seqs, scores = seqs[top], scores[top]
        order = np.lexsort((seqs, -scores))
        return [(int(seqs[i]), float(scores[i])) for i in order]

    def targets(self) -> list[Key]:
        """Targets that hold vectors."""
        return [k for k, part in self._parts.items() if part.size]
