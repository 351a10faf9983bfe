"""The chunk store: SQLite rows of files (content hash) and chunks (text, lines, vector).

Besides text and lines a chunk row keeps its source ("notes" / "transcript"), session id, day
(YYYYMMDD, 0 = undated) and frontmatter and project (`info`, JSON); a file row may keep a `resume` JSON
(where an append-only transcript can be read on from).

What is indexed is redacted first (`redaction.redacted_chunk`: text, headings and frontmatter fields), so
neither the chunk store nor the keyword index holds a secret even when a file on disk does (a
hand edit). Deleted rows are overwritten (`secure_delete`) and `forget_deleted` moves them out of
the write-ahead log too: a cleared conversation leaves no copy in `chunks.sqlite-wal`.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from remecli.config.privacy import private_dirs
from remecli.search.types import Chunk

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, hash TEXT, mtime_ns INTEGER, size INTEGER, resume TEXT
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL, start_line INTEGER,
    end_line INTEGER, headings TEXT, text TEXT, text_hash TEXT, vector BLOB,
    source TEXT NOT NULL DEFAULT 'notes', session_id TEXT NOT NULL DEFAULT '',
    day INTEGER NOT NULL DEFAULT 0, info TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks (path);
CREATE INDEX IF NOT EXISTS chunks_unembedded ON chunks (id) WHERE vector IS NULL;
"""
_PROJECT = "lower(json_extract(info, '$.project'))"  # a chunk's project, kept in `info`
_COLUMNS = "id, path, start_line, end_line, headings, text, text_hash, source, session_id, info"


@dataclass(slots=True)
class StoredChunk:
    """A chunk row as stored (id is the stable id shared by the keyword and vector sides)."""

    id: int
    chunk: Chunk
    text_hash: str


class ChunkStore:
    """Thread-safe access to the index database."""

    def __init__(self, path: Path) -> None:
        private_dirs(path.parent)
        _create_private(path)  # SQLite gives its -wal and -shm files the database's mode
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA secure_delete=ON")  # a deleted chunk's text is zeroed
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

    def files_of(self, paths: Iterable[str]) -> dict[str, tuple[str, int, int]]:
        """`files()` for these paths only (those indexed)."""
        wanted = list(paths)
        found: dict[str, tuple[str, int, int]] = {}
        with self._lock:
            for k in range(0, len(wanted), 500):
                batch = wanted[k : k + 500]
                marks = ",".join("?" * len(batch))
                rows = self._db.execute(
                    f"SELECT path, hash, mtime_ns, size FROM files WHERE path IN ({marks})", batch
                ).fetchall()
                found.update((path, (h, mtime, size)) for path, h, mtime, size in rows)
        return found

    def set_file(
        self, path: str, content_hash: str, mtime_ns: int, size: int, resume: str = ""
    ) -> None:
        """Record a file's content hash and stat (and, for transcripts, where to read on)."""
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)",
                (path, content_hash, mtime_ns, size, resume),
            )

    def resume_of(self, path: str) -> str:
        """The `resume` JSON recorded for a file ("" if none)."""
        with self._lock:
            row = self._db.execute("SELECT resume FROM files WHERE path = ?", (path,)).fetchone()
        return (row[0] or "") if row else ""

    def check(self) -> None:
        """Raise sqlite3.DatabaseError when the database is damaged."""
        with self._lock:
            result = self._db.execute("PRAGMA quick_check").fetchone()
            self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()
        if not result or result[0] != "ok":
            raise sqlite3.DatabaseError(f"quick_check: {result[0] if result else 'no answer'}")

    def ids_where(
        self, source: str | None, since: int | None, until: int | None, project: str | None = None
    ) -> list[int]:
        """Ids of chunks of one source (None = any) dated within [since, until] (None = open),
        recorded in `project` (None = any; compared without case)."""
        clauses: list[str] = []
        params: list[object] = []
        if project:
            clauses.append(f"{_PROJECT} = lower(?)")
            params.append(project)
        if source:
            clauses.append("source = ?")
            params.append(source)
        if since is not None:
            clauses.append("day >= ?")
            params.append(since)
        if until is not None:
            clauses.append("day <= ?")
            params.append(until)
        where = " AND ".join(clauses) or "1"
        with self._lock:
            rows = self._db.execute(f"SELECT id FROM chunks WHERE {where}", params).fetchall()
        return [r[0] for r in rows]

    def chunks_of(self, path: str, from_line: int = 0) -> list[StoredChunk]:
        """The stored chunks of one file (those starting at `from_line` or later)."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM chunks WHERE path = ? AND start_line >= ? ORDER BY id",
                (path, from_line),
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
                    "INSERT INTO chunks (path, start_line, end_line, headings, text, text_hash, "
                    "source, session_id, day, info) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        chunk.path,
                        chunk.start_line,
                        chunk.end_line,
                        json.dumps(chunk.headings),
                        chunk.text,
                        text_hash,
                        chunk.source,
                        chunk.session_id,
                        day_number(chunk.date),
                        _info_json(chunk),
                    ),
                )
                new_ids.append(int(cursor.lastrowid or 0))
        return new_ids

    def forget_deleted(self) -> bool:
        """Move what was deleted out of the write-ahead log too (checkpoint, then truncate the
        log), so no copy of a removed file's text stays in `chunks.sqlite-wal`. False when a
        reader in another process kept part of the log (the next call finishes it)."""
        with self._lock:
            try:
                busy, _, _ = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            except sqlite3.OperationalError as exc:
                log.warning("could not checkpoint the index's write-ahead log: %s", exc)
                return False
        if busy:
            log.info("index write-ahead log still in use by a reader; truncated on a later sync")
        return not busy

    def without_vectors(self) -> list[StoredChunk]:
        """Chunks that still need an embedding."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM chunks WHERE vector IS NULL ORDER BY id"
            ).fetchall()
        return [_row_to_chunk(row) for row in rows]

    def count_without_vectors(self) -> int:
        """Number of chunks that still need an embedding."""
        with self._lock:
            query = "SELECT COUNT(*) FROM chunks WHERE vector IS NULL"
            return int(self._db.execute(query).fetchone()[0])

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

    def vector_ids(self) -> set[int]:
        """Ids of the chunks that have a vector."""
        with self._lock:
            rows = self._db.execute("SELECT id FROM chunks WHERE vector IS NOT NULL").fetchall()
        return {r[0] for r in rows}

    def vectors_of(self, ids: list[int]) -> tuple[list[int], np.ndarray | None]:
        """The stored (chunk id, vector) of `ids` that have one, as ids and one matrix."""
        found: list[tuple[int, bytes]] = []
        with self._lock:
            for k in range(0, len(ids), 500):
                batch = ids[k : k + 500]
                marks = ",".join("?" * len(batch))
                found += self._db.execute(
                    f"SELECT id, vector FROM chunks WHERE vector IS NOT NULL AND id IN ({marks})",
                    batch,
                ).fetchall()
        if not found:
            return [], None
        matrix = np.vstack([np.frombuffer(blob, dtype=np.float32) for _, blob in found])
        return [i for i, _ in found], matrix

    def get_chunks(self, ids: list[int]) -> dict[int, Chunk]:
        """Chunks by id (missing ids are absent from the result)."""
        found: dict[int, Chunk] = {}
        with self._lock:
            for k in range(0, len(ids), 500):
                batch = ids[k : k + 500]
                marks = ",".join("?" * len(batch))
                rows = self._db.execute(
                    f"SELECT {_COLUMNS} FROM chunks WHERE id IN ({marks})", batch
                ).fetchall()
                for row in rows:
                    found[row[0]] = _row_to_chunk(row).chunk
        return found

    def of_source(self, ids: list[int], source: str) -> set[int]:
        """Which of `ids` are chunks of `source`."""
        return self._ids_where(ids, "source = ?", source)

    def of_project(self, ids: list[int], project: str) -> set[int]:
        """Which of `ids` are chunks recorded in `project` (compared without case)."""
        return self._ids_where(ids, f"{_PROJECT} = lower(?)", project)

    def _ids_where(self, ids: list[int], condition: str, value: str) -> set[int]:
        """Which of `ids` are chunks meeting `condition` (SQL with one `?`, given `value`)."""
        found: set[int] = set()
        with self._lock:
            for k in range(0, len(ids), 500):
                batch = ids[k : k + 500]
                marks = ",".join("?" * len(batch))
                rows = self._db.execute(
                    f"SELECT id FROM chunks WHERE {condition} AND id IN ({marks})",
                    [value, *batch],
                )
                found.update(r[0] for r in rows)
        return found

    def last_chunk_starts(self, source: str) -> dict[str, tuple[int, int]]:
        """path → (first line of its last chunk, file mtime_ns) for files of `source`."""
        with self._lock:
            rows = self._db.execute(
                "SELECT c.path, MAX(c.start_line), f.mtime_ns FROM chunks c "
                "JOIN files f ON f.path = c.path WHERE c.source = ? GROUP BY c.path",
                (source,),
            ).fetchall()
        return {path: (start, mtime or 0) for path, start, mtime in rows}

    def chunk_count(self) -> int:
        """Number of stored chunks."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


def _create_private(path: Path) -> None:
    """Create the database file readable by the user only (an existing one is tightened); a
    path that cannot be opened so is left to SQLite, which says what is wrong with it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o600)
    except OSError:
        return
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)
    except OSError:
        pass
    finally:
        os.close(fd)


def day_number(date: str) -> int:
    """YYYY-MM-DD → YYYYMMDD as an int (0 for "")."""
    return int(date.replace("-", "")) if date else 0


def _info_json(chunk: Chunk) -> str:
    info: dict[str, Any] = {"date": chunk.date}
    if chunk.name:
        info["name"] = chunk.name
    if chunk.description:
        info["description"] = chunk.description
    if chunk.tags:
        info["tags"] = list(chunk.tags)
    if chunk.project:
        info["project"] = chunk.project
    return json.dumps(info, ensure_ascii=False)


def _row_to_chunk(row: tuple[Any, ...]) -> StoredChunk:
    chunk_id, path, start, end, headings, text, text_hash, source, session_id, info = row
    data = json.loads(info or "{}")
    chunk = Chunk(
        path,
        start,
        end,
        text,
        tuple(json.loads(headings)),
        source=source,
        session_id=session_id,
        date=data.get("date", ""),
        name=data.get("name", ""),
        description=data.get("description", ""),
        tags=tuple(data.get("tags", ())),
        project=str(data.get("project", "")),
    )
    return StoredChunk(chunk_id, chunk, text_hash)
