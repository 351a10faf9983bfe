"""How memories become Qdrant points: a stable UUID per memory id (Qdrant takes only UUIDs and
integers as ids) and the sparse vector of a memory's keyword terms, whose values are BM25's
term-frequency part (k1 1.2, b 0.75, an assumed average of 16 terms a memory); the collection's
IDF modifier makes Qdrant's sparse score BM25."""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter

_NAMESPACE = uuid.UUID("6f1d3c0e-9b7a-4d52-8a51-2f0c4e7b9a10")  # memory id -> point id

_K1, _B, _AVERAGE_TERMS = 1.2, 0.75, 16.0
PointId = int | str | uuid.UUID


def point_id(memory_id: str) -> str:
    """The Qdrant point id of a memory id (a stable UUID)."""
    return str(uuid.uuid5(_NAMESPACE, memory_id))


def term_index(term: str) -> int:
    """A keyword term's dimension in the sparse vector (32-bit hash; a collision only adds a
    candidate, which the exact term check drops)."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "big")


def term_weights(terms: list[str]) -> dict[int, float]:
    """BM25's term-frequency part of each term of a document (Qdrant multiplies by the IDF)."""
    counts = Counter(terms)
    norm = _K1 * (1 - _B + _B * len(terms) / _AVERAGE_TERMS)
    weights: dict[int, float] = {}
    for term, tf in counts.items():
        index = term_index(term)
        weights[index] = weights.get(index, 0.0) + tf * (_K1 + 1) / (tf + norm)
    return weights
