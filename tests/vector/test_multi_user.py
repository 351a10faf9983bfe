"""Several users on one PostgreSQL table, isolated by the database (row-level security keyed on
each user's own login role), not by a `user_name` filter: through the store, through ReMe and
through raw SQL on the user's own connection, one user cannot read, change or delete another's
rows. Runs on the real PostgreSQL + pgvector server of the tests."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from remecli.vector.filters import compile_filters
from remecli.vector.node import MemoryNode
from remecli.vector.stores import VectorStoreError, make_store
from remecli.vector.stores.pgvector_shared import setup_shared_table
from remecli.vector.terms import search_terms
from tests.vector.helpers import make_reme

_runs = itertools.count()
DIMS = 64


def as_role(dsn: str, role: str) -> str:
    """The DSN of the same server and database, logging in as `role`."""
    info = conninfo_to_dict(dsn)
    info.update(user=role, password="")
    return make_conninfo(**{k: v for k, v in info.items() if v not in (None, "")})


@pytest.fixture
def shared(pg_dsn: str) -> Iterator[dict[str, Any]]:
    """A shared table with row-level security and two login roles that may use it."""
    run = next(_runs)
    table, alice, bob = f"team_{run}", f"alice_{run}", f"bob_{run}"
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        for role in (alice, bob):
            admin.execute(f"CREATE ROLE {role} LOGIN NOSUPERUSER NOBYPASSRLS")
    setup_shared_table(pg_dsn, table, DIMS, [alice, bob])
    yield {
        "table": table,
        "admin": pg_dsn,
        "alice": as_role(pg_dsn, alice),
        "bob": as_role(pg_dsn, bob),
        "roles": (alice, bob),
    }


def config(shared: dict[str, Any], who: str) -> dict[str, Any]:
    return {
        "backend": "pgvector",
        "dsn": shared[who],
        "table": shared["table"],
        "row_security": True,
    }


def unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).standard_normal(DIMS).astype(np.float32)
    return vector / np.linalg.norm(vector)


def test_a_user_sees_and_changes_only_their_own_rows(shared, tmp_path: Path) -> None:
    alice = make_store(config(shared, "alice"), tmp_path, DIMS)
    bob = make_store(config(shared, "bob"), tmp_path, DIMS)
    try:
        secret = MemoryNode("personal", "alice", "Alice's bank PIN hint is the cat's birthday")
        same_text = MemoryNode("procedural", "deploy", "Run the migrations first")
        alice.add([secret, same_text], np.stack([unit(1), unit(2)]))
        # Bob may store the same text for the same task: his row, not a clash with Alice's
        twin = MemoryNode("procedural", "deploy", "Run the migrations first")
        [(stored, created)] = bob.add([twin], np.stack([unit(2)]))
        assert created and stored.memory_id == twin.memory_id
        bob.add(
            [MemoryNode("personal", "bob", f"bob fact {k}") for k in range(40)],
            np.stack([unit(10 + k) for k in range(40)]),
        )  # the COPY path

        # through the store, with filters crafted to reach Alice's rows
        aimed = compile_filters({"memory_type": "personal", "memory_target": "alice"})
        assert bob.get(secret.memory_id) is None
        assert bob.list_nodes(aimed, None, False, None) == []
        assert bob.count(aimed) == 0
        assert bob.vector_search(unit(1), aimed, 10) == []
        assert all(n.memory_target != "alice" for n in bob.vector_search(unit(1), [], 100))
        assert bob.keyword_search(search_terms("bank PIN birthday"), [], 10) == []
        assert bob.update(secret.memory_id, {"content": "mine now"}, None, None) is None
        assert bob.delete([secret.memory_id, same_text.memory_id]) == 0
        assert bob.count([]) == 41
        assert bob.delete_where(aimed) == 0

        # through raw SQL on Bob's own connection
        table = shared["table"]
        alice_role = shared["roles"][0]
        with psycopg.connect(shared["bob"], autocommit=True) as conn:
            assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 41
            assert (
                conn.execute(f"SELECT COUNT(*) FROM {table} WHERE owner = %s", (alice_role,))
            ).fetchone()[0] == 0
            assert (
                conn.execute(f"DELETE FROM {table} WHERE owner = %s", (alice_role,)).rowcount == 0
            )
            assert conn.execute(f"UPDATE {table} SET content = 'x' WHERE TRUE").rowcount == 41
            with pytest.raises(psycopg.errors.InsufficientPrivilege):  # WITH CHECK
                conn.execute(f"UPDATE {table} SET owner = %s", (alice_role,))
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(
                    f"INSERT INTO {table} (owner, memory_id, memory_type, memory_target, content, "
                    "content_hash, time_created, time_modified, embedding) VALUES "
                    "(%s, 'planted', 'personal', 'alice', 'planted', 'h', 't', 't', %s::vector)",
                    (alice_role, str(unit(3).tolist())),
                )
            with pytest.raises(psycopg.errors.InsufficientPrivilege):  # not the table's owner
                conn.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("SET row_security = off")
                conn.execute(f"SELECT COUNT(*) FROM {table}")
            conn.execute("RESET row_security")
            assert conn.execute(f"DELETE FROM {table}").rowcount == 41  # all of his, none of hers

        # Alice's rows are untouched
        assert alice.get(secret.memory_id) == secret
        assert alice.count([]) == 2
        assert [n.memory_id for n in alice.vector_search(unit(1), [], 1)] == [secret.memory_id]
        with psycopg.connect(shared["admin"]) as conn:
            owners = conn.execute(f"SELECT owner, COUNT(*) FROM {table} GROUP BY owner").fetchall()
        assert owners == [(alice_role, 2)]
    finally:
        alice.close()
        bob.close()


async def test_each_users_reme_on_the_shared_table(fake_ai, shared, tmp_path: Path) -> None:
    alice = await make_reme(fake_ai, tmp_path / "a", config(shared, "alice")).start()
    bob = await make_reme(fake_ai, tmp_path / "b", config(shared, "bob")).start()
    try:
        await alice.add_memories(
            [{"content": f"alice note {k}"} for k in range(50)], user_name="alice"
        )
        await bob.add_memory(memory_content="Bob likes green tea", user_name="bob")
        found = await bob.retrieve("alice note 7", user_name="alice", top_k=5)
        assert found.nodes == []
        assert await bob.list_memory(user_name="alice") == []
        assert await bob.delete_all() == 1  # only his own
        assert len(await alice.list_memory(user_name="alice", limit=100)) == 50
        assert await alice.reembed() == 50  # re-embedding works within one's own rows
    finally:
        await alice.close()
        await bob.close()


def test_the_store_refuses_a_role_that_is_not_confined(shared, pg_dsn, tmp_path: Path) -> None:
    # the administrator (a superuser, and the table's owner) would see every user's rows
    with pytest.raises(VectorStoreError, match="not confined by row-level security"):
        make_store(config(shared, "admin"), tmp_path, DIMS)
    # a table without the policy is refused, not used unprotected
    plain = f"plain_{next(_runs)}"
    make_store({"backend": "pgvector", "dsn": pg_dsn, "table": plain}, tmp_path, DIMS).close()
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        admin.execute(f"GRANT SELECT ON {plain} TO {shared['roles'][0]}")
    settings = {**config(shared, "alice"), "table": plain}
    with pytest.raises(VectorStoreError, match="not protected by row-level security"):
        make_store(settings, tmp_path, DIMS)
    with pytest.raises(VectorStoreError, match="no shared table"):
        make_store({**settings, "table": "nowhere"}, tmp_path, DIMS)


def test_each_user_configures_the_shared_table_in_their_config_file(
    fake_ai, shared, tmp_path: Path, capsys, monkeypatch
) -> None:
    from remecli.__main__ import main
    from tests.vector.test_cli import fake_env

    for key, value in fake_env(fake_ai).items():
        monkeypatch.setenv(key, value)

    def remecli(who: str, *args: str) -> tuple[int, str, str]:
        config = tmp_path / f"{who}.yaml"
        config.write_text(
            "memory:\n  vector:\n    store:\n      backend: pgvector\n"
            f"      dsn: '{shared[who]}'\n      table: {shared['table']}\n"
            "      row_security: true\n",
            encoding="utf-8",
        )
        code = main(["memories", *args, f"config={config}", f"working_dir={tmp_path / who}"])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, err = remecli(
        "alice", "add", "Alice's PIN hint is the cat's birthday", "--user", "alice"
    )
    assert code == 0, err
    assert remecli("bob", "add", "Bob likes green tea", "--user", "bob")[0] == 0
    assert remecli("bob", "list", "--user", "alice")[1].strip() == "(no memories)"
    code, out, _ = remecli("bob", "retrieve", "PIN hint cat birthday", "--json")
    assert "Alice" not in out
    assert remecli("bob", "delete-all", "--yes")[1].strip() == "deleted 1 memory"
    assert "Alice's PIN hint" in remecli("alice", "list")[1]
