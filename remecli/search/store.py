"""The chunk store: SQLite rows of files (content hash) and chunks (text, lines, vector)."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from remecli.search.types import Chunk

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, hash TEXT, mtime_ns INTEGER, size INTEGER);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL, start_line INTEGER,
    end_line INTEGER, headings TEXT, text TEXT, text_hash TEXT, vector BLOB
);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks (path);
"""


@dataclass(slots=True)
class StoredChunk:
    """A chunk row as stored (id is the stable id shared by the keyword and vector sides)."""

    id: int
    chunk: Chunk
    text_hash: str


class ChunkStore:
    """Thread-safe access to the index database."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def get_meta(self, key: str) -> str | None:
        """A value of the meta table."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        """Set a value of the meta table."""
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def files(self) -> dict[str, tuple[str, int, int]]:
        """path → (content hash, mtime_ns, size) of every indexed file."""
        with self._lock:
            rows = self._db.execute("SELECT path, hash, mtime_ns, size FROM files").fetchall()
        return {path: (h, mtime, size) for path, h, mtime, size in rows}

    def set_file(self, path: str, content_hash: str, mtime_ns: int, size: int) -> None:
        """Record a file's content hash and stat."""
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)",
                (path, content_hash, mtime_ns, size),
            )

    def chunks_of(self, path: str) -> list[StoredChunk]:
        """The stored chunks of one file."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, path, start_line, end_line, headings, text, text_hash FROM chunks "
                "WHERE path = ? ORDER BY id",
                (path,),
            ).fetchall()
        return [_row_to_chunk(row) for row in rows]

    def remove_file(self, path: str) -> list[int]:
        """Forget a file and its chunks; returns the removed chunk ids."""
        with self._lock, self._db:
            ids = [r[0] for r in self._db.execute("SELECT id FROM chunks WHERE path = ?", (path,))]
            self._db.execute("DELETE FROM chunks WHERE path = ?", (path,))
            self._db.execute("DELETE FROM files WHERE path = ?", (path,))
        return ids

    def update_chunks(
        self,
        remove_ids: list[int],
        moved: list[tuple[int, int, int]],
        add: list[tuple[Chunk, str]],
    ) -> list[int]:
        """Delete ids, move kept chunks to new (start, end) lines, insert new chunks → new ids."""
        new_ids: list[int] = []
        with self._lock, self._db:
            self._db.executemany("DELETE FROM chunks WHERE id = ?", [(i,) for i in remove_ids])
            self._db.executemany(
                "UPDATE chunks SET start_line = ?, end_line = ? WHERE id = ?",
                [(start, end, i) for i, start, end in moved],
            )
            for chunk, text_hash in add:
                cursor = self._db.execute(
                    "INSERT INTO chunks (path, start_line, end_line, headings, text, text_hash) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        chunk.path,
                        chunk.start_line,
                        chunk.end_line,
                        json.dumps(chunk.headings),
                        chunk.text,
                        text_hash,
                    ),
                )
                new_ids.append(int(cursor.lastrowid))
        return new_ids

    def without_vectors(self) -> list[StoredChunk]:
        """Chunks that still need an embedding."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, path, start_line, end_line, headings, text, text_hash FROM chunks "
                "WHERE vector IS NULL ORDER BY id"
            ).fetchall()
        return [_row_to_chunk(row) for row in rows]

    def set_vectors(self, items: Iterable[tuple[int, np.ndarray]]) -> None:
        """Store embeddings of chunk ids."""
        with self._lock, self._db:
            self._db.executemany(
                "UPDATE chunks SET vector = ? WHERE id = ?",
                [(np.asarray(v, dtype=np.float32).tobytes(), i) for i, v in items],
            )

    def clear_vectors(self) -> None:
        """Forget all embeddings (the embedder changed)."""
        with self._lock, self._db:
            self._db.execute("UPDATE chunks SET vector = NULL")

    def all_vectors(self) -> tuple[list[int], np.ndarray | None]:
        """Every stored (chunk id, vector), as ids and one matrix."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, vector FROM chunks WHERE vector IS NOT NULL ORDER BY id"
            ).fetchall()
        if not rows:
            return [], None
        matrix = np.vstack([np.frombuffer(blob, dtype=np.float32) for _, blob in rows])
        return [r[0] for r in rows], matrix

    def get_chunks(self, ids: list[int]) -> dict[int, Chunk]:
        """Chunks by id (missing ids are absent from the result)."""
        found: dict[int, Chunk] = {}
        with self._lock:
            for k in range(0, len(ids), 500):
                batch = ids[k : k + 500]
                marks = ",".join("?" * len(batch))
                rows = self._db.execute(
                    "SELECT id, path, start_line, end_line, headings, text, text_hash FROM chunks "
                    f"WHERE id IN ({marks})",
                    batch,
                ).fetchall()
                for row in rows:
                    found[row[0]] = _row_to_chunk(row).chunk
        return found

    def chunk_count(self) -> int:
        """Number of stored chunks."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


def _row_to_chunk(row: tuple) -> StoredChunk:
    chunk_id, path, start, end, headings, text, text_hash = row
    return StoredChunk(
        chunk_id, Chunk(path, start, end, text, tuple(json.loads(headings))), text_hash
    )
