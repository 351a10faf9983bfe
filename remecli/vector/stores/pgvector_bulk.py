"""The bulk paths of the pgvector store: many memories through one binary COPY into a staging
table and one `INSERT … SELECT … ON CONFLICT DO NOTHING`, and the HNSW index dropped for a large
load and built once after it (building the graph once is many times faster than inserting into
it row by row)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

import numpy as np

from remecli.vector.node import COLUMNS, ContentKey, MemoryNode
from remecli.vector.stores.base import VectorStoreError
from remecli.vector.stores.pg_sql import HNSW_INDEX, SELECT_COLUMNS, SqlOf, has_relation
from remecli.vector.terms import document_terms

if TYPE_CHECKING:
    from psycopg.rows import DictRow
    from psycopg.sql import Composed

    from remecli.vector.stores.pg_sql import PgConnection

COPY_FROM = 32  # an add of at least this many nodes goes through COPY
DEFER_INDEX_FROM = 1_000  # a load this large (and ≥ the rows stored) builds the index after
_STAGED = (*COLUMNS, "metadata", "terms", "embedding", "ord")
_TYPES = ["text"] * len(COLUMNS) + ["text", "text[]", "vector", "int4"]
_STAGING = (
    "CREATE TEMP TABLE {staging} ("
    + ", ".join(f"{name} TEXT" for name in COLUMNS)
    + ", metadata TEXT, terms TEXT[], embedding vector, ord INTEGER) ON COMMIT DROP"
)
_STAGING_NAME = "reme_staging"


def copy_add(
    conn: PgConnection,
    sql: SqlOf,
    nodes: list[MemoryNode],
    vectors: np.ndarray,
    node_of: Callable[[DictRow], MemoryNode],
) -> list[tuple[MemoryNode, bool]]:
    """`VectorStore.add` for many nodes on `conn`, in one transaction: binary COPY into a staging
    table, then one INSERT … SELECT that skips content already stored for the target (the
    stored node is returned for those, as `add` promises)."""
    from pgvector import Vector
    from psycopg.rows import dict_row

    columns = ", ".join(COLUMNS)
    staged = ", ".join(_STAGED)

    def text(statement: str) -> Composed:
        return sql(statement, staging=_STAGING_NAME)

    with conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
        cur.execute(text(_STAGING))
        with cur.copy(text(f"COPY {{staging}} ({staged}) FROM STDIN (FORMAT BINARY)")) as copy:
            copy.set_types(_TYPES)
            for position, (node, vector) in enumerate(zip(nodes, vectors, strict=True)):
                copy.write_row(
                    [
                        *node.stored_fields().values(),
                        json.dumps(node.stored_metadata()),
                        document_terms(node.embedding_text()),
                        Vector(np.asarray(vector, dtype=np.float32)),
                        position,
                    ]
                )
        cur.execute(
            text(
                f"INSERT INTO {{table}} ({columns}, metadata, terms, embedding) "
                f"SELECT {columns}, metadata::jsonb, array_to_tsvector(terms), embedding "
                "FROM {staging} ORDER BY ord ON CONFLICT DO NOTHING RETURNING memory_id"
            )
        )
        inserted = {row["memory_id"] for row in cur.fetchall()}
        existing: dict[ContentKey, MemoryNode] = {}
        if len(inserted) < len(nodes):
            cur.execute(
                text(
                    f"SELECT {SELECT_COLUMNS} FROM {{table}} WHERE (memory_type, memory_target, "
                    "content_hash) IN (SELECT memory_type, memory_target, content_hash FROM "
                    "{staging} WHERE NOT (memory_id = ANY(%s)))"
                ),
                [list(inserted)],
            )
            for row in cur.fetchall():
                found = node_of(row)
                existing[found.content_key] = found
    results: list[tuple[MemoryNode, bool]] = []
    for node in nodes:
        if node.memory_id in inserted:
            results.append((node, True))
            continue
        twin = existing.get(node.content_key)
        if twin is None:  # the id (not the content) is taken, by a memory of another target
            raise VectorStoreError(
                f"memory id {node.memory_id} is already in use; import it without its memory_id"
            )
        results.append((twin, False))
    return results


def copy_vectors(conn: PgConnection, sql: SqlOf, ids: list[str], vectors: np.ndarray) -> None:
    """Replace the vectors of `ids`: one binary COPY into a staging table and one UPDATE."""
    from pgvector import Vector

    with conn.transaction(), conn.cursor() as cur:
        cur.execute(
            sql(
                "CREATE TEMP TABLE {staging} (memory_id TEXT, embedding vector) ON COMMIT DROP",
                staging=_STAGING_NAME,
            )
        )
        copy_in = sql(
            "COPY {staging} (memory_id, embedding) FROM STDIN (FORMAT BINARY)",
            staging=_STAGING_NAME,
        )
        with cur.copy(copy_in) as copy:
            copy.set_types(["text", "vector"])
            for memory_id, vector in zip(ids, vectors, strict=True):
                copy.write_row([memory_id, Vector(np.asarray(vector, dtype=np.float32))])
        cur.execute(
            sql(
                "UPDATE {table} t SET embedding = s.embedding FROM {staging} s "
                "WHERE t.memory_id = s.memory_id",
                staging=_STAGING_NAME,
            )
        )


@contextmanager
def index_deferred(
    conn_of: Callable[[], AbstractContextManager[PgConnection]],
    sql: SqlOf,
    table: str,
    incoming: int,
) -> Iterator[bool]:
    """Around a load of `incoming` memories: drop the HNSW index when the load is large (at least
    `DEFER_INDEX_FROM` and at least the rows stored) and build it once afterwards. Yields whether
    the index was deferred. Searches meanwhile scan exactly (correct, slower)."""
    index = f"{table}_hnsw"
    with conn_of() as conn:
        present = has_relation(conn, index)
        counted = conn.execute(sql("SELECT COUNT(*) FROM {table}")).fetchone()
        stored = int(counted[0]) if counted else 0
        defer = present and incoming >= max(DEFER_INDEX_FROM, stored)
        if defer:
            conn.execute(sql("DROP INDEX IF EXISTS {index}", index=index))
            conn.commit()
    try:
        yield defer
    finally:
        if defer:
            with conn_of() as conn:
                build_index(conn, sql, table)


def build_index(conn: PgConnection, sql: SqlOf, table: str) -> None:
    """(Re)build the HNSW index of `table` in one pass, then refresh the planner's statistics."""
    index = f"{table}_hnsw"
    with conn.transaction():
        # A graph that outgrows maintenance_work_mem (64 MB by default, ~40k 384-d vectors)
        # is built many times slower; this transaction may use more.
        conn.execute("SET LOCAL maintenance_work_mem = '1GB'")
        conn.execute(sql("DROP INDEX IF EXISTS {index}", index=index))
        conn.execute(sql(HNSW_INDEX, index=index))
    conn.execute(sql("ANALYZE {table}"))
