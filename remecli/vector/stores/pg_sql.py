"""SQL text of the pgvector store: schema, and filters / sort keys rendered with bound parameters
only (metadata keys and values never enter the SQL text)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Protocol, TypeAlias

from remecli.vector.filters import Condition
from remecli.vector.node import COLUMNS
from remecli.vector.stores.sql_shared import RECORD_COLUMNS, Rendered, SqlDialect
from remecli.vector.values import Scalar, SqlParams

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.rows import TupleRow
    from psycopg.sql import Composed

    PgConnection: TypeAlias = Connection[TupleRow]  # psycopg's connection (tuple rows)


class SqlOf(Protocol):
    """`composed` with the store's table name filled in."""

    def __call__(self, text: str, /, **names: str) -> Composed: ...


def composed(text: str, **names: str) -> Composed:
    """The SQL `text` with each `{name}` replaced by the quoted identifier `names[name]`."""
    from psycopg import sql

    return sql.SQL(text).format(**{k: sql.Identifier(v) for k, v in names.items()})


def has_relation(conn: PgConnection, name: str) -> bool:
    """Whether a table or an index of this name exists (in the search path)."""
    row = conn.execute("SELECT to_regclass(%s)", (name,)).fetchone()
    return row is not None and row[0] is not None


SELECT_COLUMNS = "seq, " + ", ".join(COLUMNS) + ", metadata"

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS {table} (
  seq BIGSERIAL,
  memory_id TEXT PRIMARY KEY,
"""
    + RECORD_COLUMNS
    + """  metadata JSONB NOT NULL DEFAULT '{{}}'::jsonb,
  terms TSVECTOR,
  embedding vector({dimensions}) NOT NULL,
  UNIQUE (memory_type, memory_target, content_hash)
);
CREATE INDEX IF NOT EXISTS {target_index} ON {table} (memory_type, memory_target, seq);
CREATE INDEX IF NOT EXISTS {created_index} ON {table} (memory_type, memory_target, time_created, seq);
CREATE INDEX IF NOT EXISTS {modified_index} ON {table} (memory_type, memory_target, time_modified, seq);
CREATE INDEX IF NOT EXISTS {terms_index} ON {table} USING gin (terms);
"""
)
HNSW_INDEX = (
    "CREATE INDEX IF NOT EXISTS {index} ON {table} USING hnsw (embedding vector_ip_ops) "
    "WITH (m = 16, ef_construction = 64)"
)


def _json_type(value: Scalar) -> str:
    if isinstance(value, bool):
        return "boolean"
    return "string" if isinstance(value, str) else "number"


def _expr(name: str, is_metadata: bool) -> Rendered:
    return ("(metadata -> %s)", [name]) if is_metadata else (name, [])


def render_conditions(conditions: list[Condition]) -> Rendered:
    """`(" WHERE …", params)` or `("", [])`."""
    parts: list[str] = []
    params: SqlParams = []
    for cond in conditions:
        meta = cond.field.is_metadata
        expr, expr_params = _expr(cond.field.name, meta)
        if not cond.is_range:
            if cond.value is None:
                parts.append(
                    f"({expr} IS NULL OR {expr} = 'null'::jsonb)" if meta else f"{expr} IS NULL"
                )
                params += expr_params * (2 if meta else 1)
            elif meta:
                parts.append(f"{expr} = %s::jsonb")
                params += [*expr_params, json.dumps(cond.value)]
            else:
                parts.append(f"{expr} = %s")
                params.append(cond.value)
            continue
        for bound, op in ((cond.lo, ">="), (cond.hi, "<=")):
            if bound is None:
                continue
            if meta:
                parts.append(f"(jsonb_typeof({expr}) = %s AND {expr} {op} %s::jsonb)")
                params += [*expr_params, _json_type(bound), *expr_params, json.dumps(bound)]
            else:
                parts.append(f"{expr} {op} %s")
                params.append(bound)
    return (" WHERE " + " AND ".join(parts)) if parts else "", params


POSTGRES = SqlDialect(render_conditions, _expr, seq="seq", mark="%s", nulls_last=True)


def tsquery_text(terms: list[str]) -> str:
    """A `tsquery` matching any of the exact lexemes (each quoted, so no operator can slip in)."""
    quoted = ["'" + t.replace("\\", "\\\\").replace("'", "''") + "'" for t in terms]
    return " | ".join(quoted)


def dsn_place(dsn: str) -> str:
    """host:port/db of a DSN, without the password."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        info = conninfo_to_dict(dsn)
    except Exception:
        return "the configured dsn"
    return (
        f"{info.get('host') or 'localhost'}:{info.get('port') or 5432}/{info.get('dbname') or ''}"
    )
