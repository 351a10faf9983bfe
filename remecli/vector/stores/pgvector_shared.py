"""One PostgreSQL table shared by several users, each isolated by the database itself: every row
carries its `owner` (the PostgreSQL role that wrote it, `current_user`), and a row-level
security policy (enabled and forced) lets a role see, change and delete only its own rows —
whatever filter or SQL its connection sends. Each user connects as their own login role; the
administrator (the table's owner) creates the table and grants each role once:

    from remecli.vector.stores.pgvector_shared import setup_shared_table
    setup_shared_table("postgresql://admin@db/memories", "team_memories", 384, ["alice", "bob"])

and each user's config names it: `{"backend": "pgvector", "dsn": "postgresql://alice@db/memories",
"table": "team_memories", "row_security": true}`. The store refuses to open such a table as a
role that would not be confined (a superuser, a BYPASSRLS role, the table's owner) or when the
policy is missing, so a mistake fails closed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from remecli.vector.stores.base import VectorStoreError
from remecli.vector.stores.pg_sql import HNSW_INDEX, composed
from remecli.vector.stores.sql_shared import RECORD_COLUMNS

if TYPE_CHECKING:
    from remecli.vector.stores.pg_sql import PgConnection

_SHARED_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS {table} (
  seq BIGSERIAL,
  owner TEXT NOT NULL DEFAULT current_user,
  memory_id TEXT NOT NULL,
"""
    + RECORD_COLUMNS
    + """  metadata JSONB NOT NULL DEFAULT '{{}}'::jsonb,
  terms TSVECTOR,
  embedding vector({dimensions}) NOT NULL,
  PRIMARY KEY (owner, memory_id),
  UNIQUE (owner, memory_type, memory_target, content_hash)
);
CREATE INDEX IF NOT EXISTS {target_index} ON {table} (owner, memory_type, memory_target, seq);
CREATE INDEX IF NOT EXISTS {created_index} ON {table} (memory_type, memory_target, time_created, seq);
CREATE INDEX IF NOT EXISTS {modified_index} ON {table} (memory_type, memory_target, time_modified, seq);
CREATE INDEX IF NOT EXISTS {terms_index} ON {table} USING gin (terms);
ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS {policy} ON {table};
CREATE POLICY {policy} ON {table} USING (owner = current_user) WITH CHECK (owner = current_user)
"""
)
_GRANTS = (
    "GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {role};"
    "GRANT USAGE ON SEQUENCE {sequence} TO {role}"
)


def setup_shared_table(admin_dsn: str, table: str, dimensions: int, roles: list[str]) -> None:
    """As the administrator: create the shared table (with its row-level security policy and
    indexes) if it is missing, and let each of `roles` (existing login roles) use it."""
    import psycopg

    names = {
        "table": table,
        "target_index": f"{table}_target",
        "created_index": f"{table}_created",
        "modified_index": f"{table}_modified",
        "terms_index": f"{table}_terms",
        "policy": f"{table}_own_rows",
    }
    with psycopg.connect(admin_dsn, autocommit=True) as conn, conn.transaction():
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        schema = _SHARED_SCHEMA.replace("{dimensions}", str(int(dimensions)))
        for statement in filter(str.strip, schema.split(";")):
            conn.execute(composed(statement, **names))
        conn.execute(composed(HNSW_INDEX, table=table, index=f"{table}_hnsw"))
        serial = conn.execute("SELECT pg_get_serial_sequence(%s, 'seq')", (table,)).fetchone()
        sequence = str(serial[0] if serial else "").split(".")[-1].strip('"')
        for role in roles:
            for grant in _GRANTS.split(";"):
                conn.execute(composed(grant, table=table, role=role, sequence=sequence))


def check_confined(conn: PgConnection, table: str, where: str) -> None:
    """Refuse a shared table this connection's role would not be confined in."""
    row = conn.execute(
        "SELECT c.relrowsecurity, c.relforcerowsecurity, pg_get_userbyid(c.relowner), "
        "EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid), "
        "EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'owner' "
        "AND NOT a.attisdropped) FROM pg_class c WHERE c.oid = to_regclass(%s)",
        (table,),
    ).fetchone()
    setup = (
        "ask the administrator to create it with remecli.vector.stores.pgvector_shared."
        "setup_shared_table (docs/vector.md: several users on one PostgreSQL)"
    )
    if row is None:
        raise VectorStoreError(f"{where} has no shared table {table!r}; {setup}")
    secured, forced, owner, has_policy, has_owner = row
    if not (secured and forced and has_policy and has_owner):
        raise VectorStoreError(
            f"table {table!r} at {where} is not protected by row-level security; {setup}"
        )
    me, bypasses = conn.execute(
        "SELECT current_user, rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user"
    ).fetchone() or ("?", True)
    if bypasses or me == owner:
        raise VectorStoreError(
            f"role {me!r} is not confined by row-level security on {table!r} (a superuser, a "
            "BYPASSRLS role or the table's owner sees every user's rows); connect as the "
            "user's own login role"
        )
