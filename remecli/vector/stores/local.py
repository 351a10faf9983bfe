"""The embedded store: SQLite (records, metadata, FTS5 keyword terms, vector blobs) under the
working dir, with the vectors also held in memory per target for exact numpy search.

One lock serializes writers of this process; another process's commits are noticed through
`PRAGMA data_version` and reloaded, so the CLI and a running assistant can share the folder.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path

import numpy as np

from remecli.config.privacy import private_dirs
from remecli.vector.filters import Condition, target_of
from remecli.vector.node import COLUMNS, MemoryNode
from remecli.vector.stores.base import DuplicateContentError, VectorStoreError, check_dimensions
from remecli.vector.stores.local_vectors import VectorPartitions
from remecli.vector.stores.sql_shared import RECORD_COLUMNS, Rendered, SqlDialect
from remecli.vector.terms import document_terms
from remecli.vector.values import ColumnValues, MetadataIn, SqlParams

_COLUMNS = ", ".join(COLUMNS)
_SELECT = "SELECT m.seq, " + ", ".join(f"m.{c}" for c in COLUMNS) + ", m.metadata FROM memories m"
_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS memories (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  memory_id TEXT NOT NULL UNIQUE,
"""
    + RECORD_COLUMNS
    + """  metadata TEXT NOT NULL DEFAULT '{}',
  vector BLOB NOT NULL,
  UNIQUE (memory_type, memory_target, content_hash)
);
CREATE INDEX IF NOT EXISTS memories_target ON memories (memory_type, memory_target);
CREATE INDEX IF NOT EXISTS memories_created ON memories (memory_type, memory_target, time_created, seq);
CREATE INDEX IF NOT EXISTS memories_modified ON memories (memory_type, memory_target, time_modified, seq);
CREATE VIRTUAL TABLE IF NOT EXISTS memory_terms USING fts5(terms, tokenize="unicode61 tokenchars '._-/'");
CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
)


def _value_expr(name: str, is_metadata: bool) -> Rendered:
    """SQL for a column or a metadata value; the key is always a bound parameter."""
    if not is_metadata:
        return f"m.{name}", []
    if '"' in name or "\\" in name:  # not expressible as a JSON path label: look it up by key
        return "(SELECT value FROM json_each(m.metadata) WHERE key = ?)", [name]
    return "json_extract(m.metadata, ?)", [f'$."{name}"']  # ~10x faster than json_each


def render_conditions(conditions: list[Condition]) -> Rendered:
    """A WHERE clause (or "") with bound parameters only."""
    parts: list[str] = []
    params: SqlParams = []
    for cond in conditions:
        expr, expr_params = _value_expr(cond.field.name, cond.field.is_metadata)
        if not cond.is_range:
            if cond.value is None:
                parts.append(f"{expr} IS NULL")
                params += expr_params
            else:
                parts.append(f"{expr} = ?")
                params += [*expr_params, cond.value]
            continue
        for bound, op in ((cond.lo, ">="), (cond.hi, "<=")):
            if bound is None:
                continue
            kind = "('text')" if isinstance(bound, str) else "('integer', 'real')"
            parts.append(f"(typeof({expr}) IN {kind} AND {expr} {op} ?)")
            params += [*expr_params, *expr_params, bound]
    return (" WHERE " + " AND ".join(parts)) if parts else "", params


FILE_MODE = 0o600  # memories are private to the user (SQLite gives -wal/-shm the same mode)


def private_files(path: Path) -> None:
    """Create the database file 0600 (before SQLite does, with the umask's mode) and make an
    existing one, its -wal / -shm files and its own folder (`vector_store/…`) private too."""
    try:
        own = "vector_store" in (path.parent.name, path.parent.parent.name)  # not a user's folder
        if own and (path.parent.stat().st_mode & 0o777) != 0o700:
            os.chmod(path.parent, 0o700)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
    except OSError:
        return  # SQLite reports what is wrong with the path
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if file.exists() and (file.stat().st_mode & 0o777) != FILE_MODE:
            os.chmod(file, FILE_MODE)


SQLITE = SqlDialect(render_conditions, _value_expr, seq="m.seq", mark="?", nulls_last=False)


class LocalVectorStore:
    """SQLite + numpy; see the module docstring."""

    def __init__(self, folder: Path, dimensions: int, embedding_model: str = "") -> None:
        private_dirs(folder)
        self.path = folder / "memories.sqlite3"
        private_files(self.path)
        self.dimensions = dimensions
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "PRAGMA synchronous=NORMAL"
            )  # WAL: durable at checkpoints, never corrupt
            self._db.executescript(_SCHEMA)
            self._check_meta(embedding_model)
            with self._db:  # memories stored as `task` by earlier versions are `procedural`
                self._db.execute(
                    "UPDATE memories SET memory_type = 'procedural' WHERE memory_type = 'task'"
                )
        except sqlite3.DatabaseError as exc:
            raise VectorStoreError(
                f"cannot open the memory store {self.path} ({exc}); move the file away to start "
                "a new one"
            ) from None
        self._vectors = VectorPartitions(dimensions)
        self._version = -1
        self._sync()

    # -- housekeeping ----------------------------------------------------------------------
    def _check_meta(self, embedding_model: str) -> None:
        meta = dict(self._db.execute("SELECT key, value FROM store_meta").fetchall())
        stored = int(meta["dimensions"]) if "dimensions" in meta else None
        check_dimensions(stored, self.dimensions, str(self.path))
        with self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO store_meta VALUES ('dimensions', ?)", (str(self.dimensions),)
            )
            self._db.execute(
                "INSERT OR IGNORE INTO store_meta VALUES ('embedding_model', ?)", (embedding_model,)
            )

    def _sync(self) -> None:
        """Reload the vectors when another connection committed since we last looked."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version == self._version:
            return
        self._vectors.clear()
        targets = self._db.execute(
            "SELECT DISTINCT memory_type, memory_target FROM memories"
        ).fetchall()
        for memory_type, target in targets:
            rows = self._db.execute(
                "SELECT seq, vector FROM memories WHERE memory_type = ? AND memory_target = ?",
                (memory_type, target),
            ).fetchall()
            seqs = np.fromiter((r[0] for r in rows), np.int64, len(rows))
            matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
            self._vectors.load((memory_type, target), seqs, matrix.reshape(len(rows), -1))
        self._version = version

    def _nodes(self, sql: str, params: SqlParams) -> list[tuple[int, MemoryNode]]:
        rows = self._db.execute(sql, params).fetchall()
        return [
            (row["seq"], MemoryNode.from_row(dict(row), json.loads(row["metadata"])))
            for row in rows
        ]

    def _by_seq(self, seqs: list[int]) -> dict[int, MemoryNode]:
        if not seqs:
            return {}
        marks = ",".join("?" * len(seqs))
        return dict(self._nodes(f"{_SELECT} WHERE m.seq IN ({marks})", list(seqs)))

    def vector_of(self, memory_id: str) -> list[float] | None:
        """See `VectorStore.vector_of`."""
        with self._lock:
            row = self._db.execute(
                "SELECT vector FROM memories WHERE memory_id = ?", (memory_id,)
            ).fetchone()
        return None if row is None else np.frombuffer(row[0], dtype=np.float32).tolist()

    @staticmethod
    def _blob(vector: np.ndarray) -> bytes:
        return np.ascontiguousarray(vector, dtype=np.float32).tobytes()

    def _put_terms(self, seq: int, node: MemoryNode) -> None:
        self._db.execute("DELETE FROM memory_terms WHERE rowid = ?", (seq,))
        terms = " ".join(document_terms(node.embedding_text()))
        self._db.execute("INSERT INTO memory_terms (rowid, terms) VALUES (?, ?)", (seq, terms))

    # -- the contract ------------------------------------------------------------------------
    def add(self, nodes: list[MemoryNode], vectors: np.ndarray) -> list[tuple[MemoryNode, bool]]:
        """See `VectorStore.add`."""
        results: list[tuple[MemoryNode, bool]] = []
        with self._lock:
            self._sync()
            added: list[tuple[int, MemoryNode, np.ndarray]] = []
            with self._db:
                for node, vector in zip(nodes, vectors, strict=True):
                    found = self._nodes(
                        f"{_SELECT} WHERE m.memory_type = ? AND m.memory_target = ? "
                        "AND m.content_hash = ?",
                        [node.memory_type, node.memory_target, node.content_hash],
                    )
                    if found:
                        results.append((found[0][1], False))
                        continue
                    fields = node.stored_fields()
                    cursor = self._db.execute(
                        f"INSERT INTO memories ({_COLUMNS}, metadata, vector) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [*fields.values(), json.dumps(node.stored_metadata()), self._blob(vector)],
                    )
                    seq = int(cursor.lastrowid or 0)
                    self._put_terms(seq, node)
                    added.append((seq, node, vector))
                    results.append((node, True))
            for seq, node, vector in added:
                self._vectors.put((node.memory_type, node.memory_target), seq, vector)
        return results

    def replace_vectors(self, memory_ids: list[str], vectors: np.ndarray) -> None:
        """Replace the vectors of these ids (re-embedding), in one transaction."""
        with self._lock:
            self._sync()
            vector_of = dict(zip(memory_ids, vectors, strict=True))
            with self._db:
                self._db.executemany(
                    "UPDATE memories SET vector = ? WHERE memory_id = ?",
                    [(self._blob(v), i) for i, v in vector_of.items()],
                )
            for start in range(0, len(memory_ids), 500):
                part = memory_ids[start : start + 500]
                rows = self._db.execute(
                    "SELECT memory_id, seq, memory_type, memory_target FROM memories "
                    f"WHERE memory_id IN ({','.join('?' * len(part))})",
                    part,
                ).fetchall()
                for memory_id, seq, memory_type, target in rows:
                    self._vectors.put((memory_type, target), seq, vector_of[memory_id])

    def get(self, memory_id: str) -> MemoryNode | None:
        """See `VectorStore.get`."""
        with self._lock:
            found = self._nodes(f"{_SELECT} WHERE m.memory_id = ?", [memory_id])
        return found[0][1] if found else None

    def update(
        self,
        memory_id: str,
        fields: ColumnValues,
        metadata: MetadataIn | None,
        vector: np.ndarray | None,
    ) -> MemoryNode | None:
        """See `VectorStore.update`."""
        with self._lock:
            self._sync()
            found = self._nodes(f"{_SELECT} WHERE m.memory_id = ?", [memory_id])
            if not found:
                return None
            seq, node = found[0]
            node.apply_update(fields, metadata)
            clash = self._db.execute(
                "SELECT memory_id FROM memories WHERE memory_type = ? AND memory_target = ? "
                "AND content_hash = ? AND seq != ?",
                (node.memory_type, node.memory_target, node.content_hash, seq),
            ).fetchone()
            if clash:
                raise DuplicateContentError(clash[0])
            stored = node.stored_fields()
            assignments = ", ".join(f"{name} = ?" for name in stored)
            params: SqlParams = [*stored.values(), json.dumps(node.stored_metadata())]
            sql = f"UPDATE memories SET {assignments}, metadata = ?"
            if vector is not None:
                sql += ", vector = ?"
                params.append(self._blob(vector))
            with self._db:
                self._db.execute(f"{sql} WHERE seq = ?", [*params, seq])
                self._put_terms(seq, node)
            if vector is not None:
                self._vectors.put((node.memory_type, node.memory_target), seq, vector)
            else:
                row = self._db.execute(
                    "SELECT vector FROM memories WHERE seq = ?", (seq,)
                ).fetchone()
                where = (node.memory_type, node.memory_target)
                self._vectors.put(where, seq, np.frombuffer(row[0], dtype=np.float32))
        return node

    def _delete_seqs(self, seqs: list[int]) -> int:
        with self._db:
            for start in range(0, len(seqs), 500):
                part = seqs[start : start + 500]
                marks = ",".join("?" * len(part))
                self._db.execute(f"DELETE FROM memories WHERE seq IN ({marks})", part)
                self._db.execute(f"DELETE FROM memory_terms WHERE rowid IN ({marks})", part)
        for seq in seqs:
            self._vectors.remove(seq)
        return len(seqs)

    def delete(self, memory_ids: list[str]) -> int:
        """See `VectorStore.delete`."""
        with self._lock:
            self._sync()
            marks = ",".join("?" * len(memory_ids))
            rows = self._db.execute(
                f"SELECT seq FROM memories WHERE memory_id IN ({marks})", memory_ids
            ).fetchall()
            return self._delete_seqs([r[0] for r in rows]) if rows else 0

    def delete_where(self, conditions: list[Condition]) -> int:
        """See `VectorStore.delete_where`."""
        where, params = render_conditions(conditions)
        with self._lock:
            self._sync()
            rows = self._db.execute(f"SELECT m.seq FROM memories m{where}", params).fetchall()
            return self._delete_seqs([r[0] for r in rows])

    def list_nodes(
        self,
        conditions: list[Condition],
        sort_key: str | None,
        reverse: bool,
        limit: int | None,
    ) -> list[MemoryNode]:
        """See `VectorStore.list`."""
        sql, params = SQLITE.listing(_SELECT, conditions, sort_key, reverse, limit)
        with self._lock:
            return [node for _, node in self._nodes(sql, params)]

    def count(self, conditions: list[Condition]) -> int:
        """See `VectorStore.count`."""
        where, params = render_conditions(conditions)
        with self._lock:
            return int(
                self._db.execute(f"SELECT COUNT(*) FROM memories m{where}", params).fetchone()[0]
            )

    def vector_search(
        self, vector: np.ndarray, conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """See `VectorStore.vector_search` (exact: every row of the target is scored)."""
        memory_type, target = target_of(conditions)
        rest = [
            c
            for c in conditions
            if c.field.is_metadata
            or c.is_range
            or c.field.name not in ("memory_type", "memory_target")
        ]
        with self._lock:
            self._sync()
            keys = [
                k
                for k in self._vectors.targets()
                if (memory_type is None or k[0] == memory_type)
                and (target is None or k[1] == target)
            ]
            allowed: set[int] | None = None
            if rest:
                where, params = render_conditions(conditions)
                allowed = {
                    r[0] for r in self._db.execute(f"SELECT m.seq FROM memories m{where}", params)
                }
            hits = self._vectors.search(np.asarray(vector, dtype=np.float32), keys, allowed, limit)
            nodes = self._by_seq([seq for seq, _ in hits])
        return [_scored(nodes[seq], score) for seq, score in hits if seq in nodes]

    def keyword_search(
        self, terms: list[str], conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """See `VectorStore.keyword_search` (FTS5 BM25)."""
        if not terms or limit <= 0:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        extra, params = SQLITE.and_conditions(conditions)
        sql = (
            "SELECT t.rowid, -bm25(memory_terms) FROM memory_terms t JOIN memories m "
            f"ON m.seq = t.rowid WHERE memory_terms MATCH ?{extra} "
            "ORDER BY bm25(memory_terms) LIMIT ?"
        )
        with self._lock:
            hits = self._db.execute(sql, [match, *params, limit]).fetchall()
            nodes = self._by_seq([seq for seq, _ in hits])
        return [_scored(nodes[seq], float(score)) for seq, score in hits if seq in nodes]

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


def _scored(node: MemoryNode, score: float) -> MemoryNode:
    node.score = score
    return node
