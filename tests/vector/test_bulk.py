"""Many memories at once: `ReMe.add_memories` on every backend (embedded in batches, deduplicated,
redacted, in order) and `ReMe.reembed`; the pgvector bulk path (COPY, then the HNSW index built
once after a large load) checked in the database itself."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remecli.vector import ReMe
from remecli.vector.stores import make_store
from remecli.vector.stores.pgvector_bulk import DEFER_INDEX_FROM
from tests.vector.helpers import make_reme

OPENAI_KEY = "sk-proj-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7s"
_tables = itertools.count()


def records(count: int) -> list[dict[str, Any]]:
    return [{"content": f"fact number {k} about the garden", "n": k} for k in range(count)]


def embedding_calls(fake: Any) -> int:
    return sum(1 for r in fake.requests if r.path.endswith("/embeddings"))


async def test_add_memories_batches_dedups_redacts_and_keeps_order(
    fake_ai, tmp_path: Path, backend_config
) -> None:
    reme = await make_reme(fake_ai, tmp_path, backend_config).start()
    try:
        first = await reme.add_memory(memory_content="Alice likes tea", user_name="alice")
        before = embedding_calls(fake_ai)
        batch: list[dict[str, Any]] = [
            *records(300),
            {"content": "Alice likes tea"},  # already stored: the stored node comes back
            {"content": "fact number 7 about the garden"},  # twice in this import
            {"content": f"my key is {OPENAI_KEY}", "when_to_use": f"calls with {OPENAI_KEY}"},
            {"content": "Build with make", "task_name": "build", "author": "ci"},
            {
                "content": "kept as exported",
                "memory_type": "tool",
                "memory_target": "grep",
                "memory_id": "fixed-id-1",
                "time_created": "2025-01-02 03:04:05",
                "metadata": {"project": "shop"},
            },
        ]
        stored = await reme.add_memories(batch, user_name="alice", batch_size=64)
        # 305 texts in parts of 64, each sent in the embedder's requests of 32: 10, not 305
        assert embedding_calls(fake_ai) - before == 10
        assert len(stored) == len(batch)
        assert [n.content for n in stored[:300]] == [r["content"] for r in records(300)]
        assert stored[0].metadata == {"n": 0}
        assert stored[300].memory_id == first.memory_id
        assert stored[301].memory_id == stored[7].memory_id
        assert stored[302].content == "my key is [REDACTED:openai_key]"
        assert stored[302].when_to_use == "calls with [REDACTED:openai_key]"
        assert (stored[303].memory_type, stored[303].memory_target) == ("procedural", "build")
        exported = await reme.get_memory("fixed-id-1")
        assert exported is not None
        assert (exported.memory_type, exported.memory_target) == ("tool", "grep")
        assert exported.time_created == "2025-01-02 03:04:05"
        assert exported.metadata == {"project": "shop"}
        assert len(await reme.list_memory(user_name="alice", limit=1000)) == 302
        found = await reme.retrieve("fact number 123 about the garden", user_name="alice")
        # HNSW engines are approximate among 300 near-duplicates: the exact one is near the top
        top = [n.content for n in found.nodes[:3]]
        assert "fact number 123 about the garden" in top
        every = await reme.list_memory(user_name="alice", limit=1000)
        assert all(OPENAI_KEY not in n.content + n.when_to_use for n in every)
    finally:
        await reme.close()


async def test_add_memories_names_the_bad_record(fake_ai, tmp_path: Path) -> None:
    reme = await make_reme(fake_ai, tmp_path, {"backend": "local"}).start()
    try:
        with pytest.raises(ValueError, match="memory 2: a memory needs a non-empty content"):
            await reme.add_memories([{"content": "ok"}, {"content": " "}], user_name="alice")
        with pytest.raises(ValueError, match="memory 1: a memory needs exactly one of"):
            await reme.add_memories([{"content": "whose?"}])
        assert await reme.list_memory() == []  # nothing of a refused import is stored
    finally:
        await reme.close()


async def test_reembed_replaces_every_vector_and_keeps_the_rest(
    fake_ai, tmp_path: Path, backend_config
) -> None:
    reme = await make_reme(fake_ai, tmp_path, backend_config).start()
    try:
        stored = await reme.add_memories(records(120), user_name="alice")
        before = {n.memory_id: await reme.get_memory(n.memory_id) for n in stored}
        # the same store, another embedding model of the same size: vectors of other texts
        await reme.close()
        reme = make_reme(fake_ai, tmp_path, backend_config)
        reme.embedder = _Reversed(reme)
        assert await reme.reembed(batch_size=50) == 120
        for memory_id, old in before.items():
            new = await reme.get_memory(memory_id)
            assert new is not None and old is not None
            assert (new.content, new.time_created, new.metadata) == (
                old.content,
                old.time_created,
                old.metadata,
            )
            expected = reme.embedder.embed_documents([old.content])[0]
            assert np.allclose(new.vector, expected, atol=1e-5)
        found = await reme.retrieve(
            "fact number 9 about the garden", user_name="alice", keyword=False
        )
        assert found.nodes[0].content == "fact number 9 about the garden"
    finally:
        await reme.close()


class _Reversed:
    """An embedding model of the same size that embeds the reversed text (other vectors)."""

    def __init__(self, reme: ReMe) -> None:
        from remecli.vector.config import build_embedder

        self._inner = build_embedder(reme.embedding_settings)
        self.dimensions = 64
        self.model_id = "reversed"

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._inner.embed_documents([t[::-1] for t in texts]), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def _unit_rows(count: int, dims: int, seed: int = 3) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, dims)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_pgvector_large_load_builds_the_index_once_after(pg_dsn: str, tmp_path: Path) -> None:
    import psycopg

    from remecli.vector.bulk import deferred_index
    from remecli.vector.node import MemoryNode

    table = f"bulk_{next(_tables)}"
    store = make_store({"backend": "pgvector", "dsn": pg_dsn, "table": table}, tmp_path, 16)
    nodes = [MemoryNode("personal", "alice", f"memory {k}") for k in range(DEFER_INDEX_FROM)]
    vectors = _unit_rows(len(nodes), 16)
    try:
        with psycopg.connect(pg_dsn, autocommit=True) as conn:

            def index() -> Any:
                return conn.execute("SELECT to_regclass(%s)", (f"{table}_hnsw",)).fetchone()[0]

            assert index() is not None
            with deferred_index(store, len(nodes)) as deferred:
                assert deferred is True and index() is None  # no graph to maintain per row
                results = store.add(nodes, vectors)
            assert index() is not None  # built once, after the load
            assert all(created for _, created in results)
            count = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            assert count == len(nodes)
            # a small load into a table this size keeps the index maintained
            with deferred_index(store, 10) as deferred:
                assert deferred is False and index() is not None
            # the index answers: the nearest neighbour of a stored vector is itself
            plan = conn.execute(
                f"EXPLAIN SELECT memory_id FROM {table} ORDER BY embedding <#> %s::vector LIMIT 5",
                (str(vectors[5].tolist()),),
            ).fetchall()
            assert any(f"{table}_hnsw" in row[0] for row in plan)
        conditions: list[Any] = []
        assert store.vector_search(vectors[5], conditions, 1)[0].content == "memory 5"
    finally:
        store.close()
