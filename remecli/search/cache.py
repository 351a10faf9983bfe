"""On-disk embedding cache keyed by (model, dimensions, text hash)."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import numpy as np

from remecli.config.privacy import private_dirs


def cache_key(model_id: str, dimensions: int, text: str) -> bytes:
    """The cache key of one text under one model and dimension count."""
    return hashlib.sha256(f"{model_id}\x00{dimensions}\x00{text}".encode()).digest()


class EmbeddingCache:
    """A small SQLite table of float32 vectors; safe to share between threads."""

    def __init__(self, path: Path) -> None:
        private_dirs(path.parent)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB)")
        self._lock = threading.Lock()

    def get_many(self, keys: list[bytes]) -> dict[bytes, np.ndarray]:
        """Vectors found for these keys."""
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            for k in range(0, len(keys), 500):
                batch = keys[k : k + 500]
                marks = ",".join("?" * len(batch))
                rows = self._db.execute(
                    f"SELECT key, vector FROM vectors WHERE key IN ({marks})", batch
                )
                for key, blob in rows:
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: list[tuple[bytes, np.ndarray]]) -> None:
        """Store vectors under their keys."""
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)",
                [(key, np.asarray(v, dtype=np.float32).tobytes()) for key, v in items],
            )

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
