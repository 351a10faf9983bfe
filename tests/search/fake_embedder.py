"""A deterministic embedder for tests: hashed bag of character trigrams (and CJK bigrams)."""

from __future__ import annotations

import hashlib
import re

import numpy as np


class CharNgramEmbedder:
    """Texts sharing character n-grams get similar vectors; no model, fully deterministic."""

    def __init__(self, dimensions: int = 256) -> None:
        self.dimensions = dimensions
        self.model_id = "test/char-ngrams"
        self.documents_embedded = 0

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dimensions, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            padded = f" {word} "
            size = 2 if any(ord(c) > 0x2E80 for c in word) else 3
            for k in range(max(len(padded) - size + 1, 1)):
                digest = hashlib.blake2b(padded[k : k + size].encode(), digest_size=8).digest()
                slot = int.from_bytes(digest[:4], "little") % self.dimensions
                vector[slot] += 1.0 if digest[4] & 1 else -1.0
        norm = np.linalg.norm(vector)
        return vector / norm if norm else vector

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.documents_embedded += len(texts)
        return (
            np.vstack([self._vector(t) for t in texts]) if texts else np.zeros((0, self.dimensions))
        )

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)
