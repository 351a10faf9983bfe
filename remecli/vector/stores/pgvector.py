"""PostgreSQL + pgvector: the store for memories that outgrow one machine's embedded file.

`default_vector_store_config={"backend": "pgvector", "dsn": "postgresql://user:pw@host/db",
"table": "reme_memories"}`. Any server with the `vector` extension works (managed services,
replicas, Citus); the table, its HNSW index (inner product on unit vectors) and a GIN index of
keyword terms are created on first use. Every statement is parameterized.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING

import numpy as np

from remecli.vector.filters import Condition
from remecli.vector.node import COLUMNS, MemoryNode, content_hash
from remecli.vector.stores.base import DuplicateContentError, VectorStoreError, check_dimensions
from remecli.vector.stores.pg_sql import (
    POSTGRES,
    SCHEMA,
    SELECT_COLUMNS,
    composed,
    dsn_place,
    has_relation,
    render_conditions,
    tsquery_text,
)
from remecli.vector.stores.pgvector_bulk import (
    COPY_FROM,
    build_index,
    copy_add,
    copy_vectors,
    index_deferred,
)
from remecli.vector.stores.pgvector_shared import check_confined
from remecli.vector.terms import document_terms
from remecli.vector.values import ColumnValues, MetadataIn, SqlParams

if TYPE_CHECKING:
    from pgvector import Vector
    from psycopg.rows import DictRow
    from psycopg.sql import Composed

    from remecli.vector.stores.pg_sql import PgConnection

_TABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,50}$")
_INSERT = (
    "INSERT INTO {table} ("
    + ", ".join(COLUMNS)
    + ", metadata, terms, embedding) VALUES ("
    + ", ".join(["%s"] * len(COLUMNS))
    + ", %s::jsonb, array_to_tsvector(%s::text[]), %s) "
    "ON CONFLICT DO NOTHING RETURNING memory_id"
)


class PgVectorStore:
    """The pgvector backend; see the module docstring."""

    def __init__(
        self,
        dsn: str,
        dimensions: int,
        *,
        table: str = "reme_memories",
        hnsw: bool = True,
        pool_size: int = 4,
        connect_timeout: float = 5.0,
        row_security: bool = False,
    ) -> None:
        import psycopg
        from pgvector.psycopg import register_vector
        from psycopg_pool import ConnectionPool

        if not _TABLE_NAME.match(table):
            raise VectorStoreError(
                f"table name {table!r} is not allowed: use letters, digits and _ (≤ 51 chars)"
            )
        self.dimensions = dimensions
        self.table = table
        self.row_security = row_security
        self.where = where = dsn_place(dsn)
        try:
            with psycopg.connect(
                dsn, connect_timeout=int(connect_timeout), autocommit=True
            ) as conn:
                if row_security:  # a table shared by several users (pgvector_shared.py)
                    check_confined(conn, table, where)
                    check_dimensions(self._stored_dimensions(conn), dimensions, f"{where} {table}")
                else:
                    self._ensure_schema(conn, hnsw, where)
        except psycopg.OperationalError as exc:
            reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
            raise VectorStoreError(
                f"cannot reach PostgreSQL at {where} ({reason}); start the server or fix "
                "default_vector_store_config['dsn']"
            ) from None

        def configure(conn: PgConnection) -> None:
            register_vector(conn)
            conn.execute("SET hnsw.iterative_scan = strict_order")
            conn.commit()

        self._pool = ConnectionPool(
            dsn,
            min_size=1,
            max_size=pool_size,
            kwargs={"connect_timeout": int(connect_timeout)},
            configure=configure,
            open=True,
            timeout=max(2 * connect_timeout, 5.0),
        )

    @contextmanager
    def _connection(self) -> Iterator[PgConnection]:
        """A pooled connection; a lost server becomes one actionable VectorStoreError."""
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            with self._pool.connection() as conn:
                yield conn
        except (psycopg.OperationalError, PoolTimeout) as exc:
            reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
            raise VectorStoreError(
                f"lost the connection to PostgreSQL at {self.where} ({reason}); check that the "
                "server is running"
            ) from None

    def _sql(self, text: str, /, **names: str) -> Composed:
        return composed(text, **{"table": self.table, **names})

    def _ensure_schema(self, conn: PgConnection, hnsw: bool, where: str) -> None:
        import psycopg

        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.Error as exc:
            raise VectorStoreError(
                f"PostgreSQL at {where} has no pgvector ({exc.diag.message_primary}); install it "
                "(e.g. apt-get install postgresql-16-pgvector) and run CREATE EXTENSION vector"
            ) from None
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self.table,))
            stored = self._stored_dimensions(conn)
            check_dimensions(stored, self.dimensions, f"{where} {self.table}")
            schema = SCHEMA.replace("{dimensions}", str(int(self.dimensions)))
            for statement in filter(str.strip, schema.split(";")):
                conn.execute(
                    self._sql(
                        statement,
                        target_index=f"{self.table}_target",
                        created_index=f"{self.table}_created",
                        modified_index=f"{self.table}_modified",
                        terms_index=f"{self.table}_terms",
                    )
                )
            # memories stored as `task` by earlier versions are `procedural`
            conn.execute(
                self._sql(
                    "UPDATE {table} SET memory_type = 'procedural' WHERE memory_type = 'task'"
                )
            )
            index = f"{self.table}_hnsw"
            if hnsw and not has_relation(conn, index):
                build_index(conn, self._sql, self.table)

    def _stored_dimensions(self, conn: PgConnection) -> int | None:
        row = conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass(%s) "
            "AND attname = 'embedding'",
            (self.table,),
        ).fetchone()
        return int(row[0]) if row else None

    # -- helpers -----------------------------------------------------------------------------
    def _rows(self, query: Composed, params: SqlParams) -> list[MemoryNode]:
        from psycopg.rows import dict_row

        with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute(query, params)
            rows = cur.fetchall()
        return [self._node(row) for row in rows]

    @staticmethod
    def _node(row: DictRow) -> MemoryNode:
        node = MemoryNode.from_row(row, row["metadata"])
        if "score" in row:
            node.score = float(row["score"])
        return node

    @staticmethod
    def _vector(vector: np.ndarray) -> Vector:
        from pgvector import Vector

        return Vector(np.asarray(vector, dtype=np.float32))

    # -- the contract --------------------------------------------------------------------------
    def add(self, nodes: list[MemoryNode], vectors: np.ndarray) -> list[tuple[MemoryNode, bool]]:
        """See `VectorStore.add` (ON CONFLICT on the content hash: concurrent adds dedup too;
        many nodes go through one binary COPY)."""
        if len(nodes) >= COPY_FROM:
            with self._connection() as conn:
                return copy_add(conn, self._sql, nodes, vectors, self._node)
        results: list[tuple[MemoryNode, bool]] = []
        insert = self._sql(_INSERT)
        find = self._sql(
            f"SELECT {SELECT_COLUMNS} FROM {{table}} WHERE memory_type = %s AND memory_target = %s "
            "AND content_hash = %s"
        )
        from psycopg.rows import dict_row

        with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            for node, vector in zip(nodes, vectors, strict=True):
                params = [
                    *node.stored_fields().values(),
                    json.dumps(node.stored_metadata()),
                    document_terms(node.embedding_text()),
                    self._vector(vector),
                ]
                cur.execute(insert, params)
                if cur.fetchone() is not None:
                    results.append((node, True))
                    continue
                cur.execute(find, [node.memory_type, node.memory_target, node.content_hash])
                twin = cur.fetchone()
                if twin is None:  # the id (not the content) is taken
                    raise VectorStoreError(f"memory id {node.memory_id} is already in use")
                results.append((self._node(twin), False))
        return results

    def get(self, memory_id: str) -> MemoryNode | None:
        """See `VectorStore.get`."""
        found = self._rows(
            self._sql(f"SELECT {SELECT_COLUMNS} FROM {{table}} WHERE memory_id = %s"), [memory_id]
        )
        return found[0] if found else None

    def vector_of(self, memory_id: str) -> list[float] | None:
        """See `VectorStore.vector_of`."""
        with self._connection() as conn:
            row = conn.execute(
                self._sql("SELECT embedding FROM {table} WHERE memory_id = %s"), [memory_id]
            ).fetchone()
        if row is None:
            return None
        value = row[0].to_list() if hasattr(row[0], "to_list") else row[0]
        return [float(x) for x in value]

    def update(
        self,
        memory_id: str,
        fields: ColumnValues,
        metadata: MetadataIn | None,
        vector: np.ndarray | None,
    ) -> MemoryNode | None:
        """See `VectorStore.update`: one UPDATE statement, so parallel updates never lose one."""
        import psycopg
        from psycopg.rows import dict_row

        columns = {k: v for k, v in fields.items() if k in COLUMNS and k != "memory_id"}
        if "content" in columns:
            columns["content_hash"] = content_hash(columns["content"] or "")
        sets = [f"{name} = %s" for name in columns]
        params: SqlParams = list(columns.values())
        patch = {k: v for k, v in (metadata or {}).items() if v is not None}
        removed = [k for k, v in (metadata or {}).items() if v is None]
        sets.append("metadata = (metadata || %s::jsonb) - %s::text[]")
        params += [json.dumps(patch), removed]
        if vector is not None:
            sets.append("embedding = %s")
            params.append(self._vector(vector))
        query = self._sql(
            f"UPDATE {{table}} SET {', '.join(sets)} WHERE memory_id = %s RETURNING {SELECT_COLUMNS}"
        )
        retext = self._sql(
            "UPDATE {table} SET terms = array_to_tsvector(%s::text[]) WHERE seq = %s"
        )
        try:
            with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
                cur.execute(query, [*params, memory_id])
                row = cur.fetchone()
                if row is None:
                    return None
                node = self._node(row)
                if "content" in fields or "when_to_use" in fields:
                    cur.execute(retext, [document_terms(node.embedding_text()), row["seq"]])
        except psycopg.errors.UniqueViolation:
            current = self.get(memory_id)
            assert current is not None
            for name, value in fields.items():
                if name != "content_hash":
                    setattr(current, name, value)
            twin = self._rows(
                self._sql(
                    f"SELECT {SELECT_COLUMNS} FROM {{table}} WHERE memory_type = %s "
                    "AND memory_target = %s AND content_hash = %s"
                ),
                [current.memory_type, current.memory_target, current.content_hash],
            )
            raise DuplicateContentError(twin[0].memory_id if twin else "?") from None
        return node

    def delete(self, memory_ids: list[str]) -> int:
        """See `VectorStore.delete`."""
        with self._connection() as conn:
            cur = conn.execute(
                self._sql("DELETE FROM {table} WHERE memory_id = ANY(%s)"), [list(memory_ids)]
            )
            return int(cur.rowcount)

    def delete_where(self, conditions: list[Condition]) -> int:
        """See `VectorStore.delete_where`."""
        where, params = render_conditions(conditions)
        with self._connection() as conn:
            return int(conn.execute(self._sql("DELETE FROM {table}" + where), params).rowcount)

    def list_nodes(
        self,
        conditions: list[Condition],
        sort_key: str | None,
        reverse: bool,
        limit: int | None,
    ) -> list[MemoryNode]:
        """See `VectorStore.list`."""
        select = f"SELECT {SELECT_COLUMNS} FROM {{table}}"
        text, params = POSTGRES.listing(select, conditions, sort_key, reverse, limit)
        return self._rows(self._sql(text), params)

    def count(self, conditions: list[Condition]) -> int:
        """See `VectorStore.count`."""
        where, params = render_conditions(conditions)
        with self._connection() as conn:
            row = conn.execute(self._sql("SELECT COUNT(*) FROM {table}" + where), params).fetchone()
        return int(row[0]) if row else 0

    def vector_search(
        self, vector: np.ndarray, conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """See `VectorStore.vector_search` (HNSW with iterative scans when filtered)."""
        where, params = render_conditions(conditions)
        query = np.asarray(vector, dtype=np.float32)
        text = (
            f"SELECT {SELECT_COLUMNS}, -(embedding <#> %s) AS score FROM {{table}}{where} "
            "ORDER BY embedding <#> %s LIMIT %s"  # nothing else in ORDER BY, or HNSW is not used
        )
        return self._rows(
            self._sql(text), [self._vector(query), *params, self._vector(query), limit]
        )

    def keyword_search(
        self, terms: list[str], conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """See `VectorStore.keyword_search` (ts_rank over the exact analyzed terms)."""
        if not terms or limit <= 0:
            return []
        extra, params = POSTGRES.and_conditions(conditions)
        text = (
            f"SELECT {SELECT_COLUMNS}, ts_rank(terms, %s::tsquery) AS score FROM {{table}} "
            f"WHERE terms @@ %s::tsquery{extra} ORDER BY score DESC, seq LIMIT %s"
        )
        query = tsquery_text(terms)
        return self._rows(self._sql(text), [query, query, *params, limit])

    # -- bulk loads ----------------------------------------------------------------------------
    def defer_index(self, incoming: int) -> AbstractContextManager[bool]:
        """Around a load of `incoming` memories: the HNSW index is built once after a large one
        (see `pgvector_bulk.index_deferred`); a shared table's index is its owner's."""
        if self.row_security:
            return nullcontext(False)
        return index_deferred(self._connection, self._sql, self.table, incoming)

    def replace_vectors(self, memory_ids: list[str], vectors: np.ndarray) -> None:
        """Replace the vectors of these ids in one COPY (re-embedding)."""
        with self._connection() as conn:
            copy_vectors(conn, self._sql, memory_ids, vectors)

    def rebuild_index(self) -> None:
        """Build the HNSW index again in one pass (after re-embedding, or a load with
        `hnsw: false`)."""
        if self.row_security:
            raise VectorStoreError(
                f"the index of the shared table {self.table!r} belongs to its owner: ask the "
                f"administrator to run REINDEX INDEX {self.table}_hnsw"
            )
        with self._connection() as conn:
            build_index(conn, self._sql, self.table)

    def close(self) -> None:
        """Close the connection pool."""
        self._pool.close()
