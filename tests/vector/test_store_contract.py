"""The one contract every vector store backend meets, run against each of them (local SQLite +
numpy, and a real PostgreSQL + pgvector server)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from remecli.vector.filters import compile_filters
from remecli.vector.node import MemoryNode
from remecli.vector.stores import DuplicateContentError, VectorStoreError, make_store
from remecli.vector.terms import search_terms


def unit(*weights: float, dims: int = 8) -> np.ndarray:
    vector = np.zeros(dims, dtype=np.float32)
    vector[: len(weights)] = weights
    return vector / np.linalg.norm(vector)


def node(content: str, target: str = "alice", kind: str = "personal", **extra) -> MemoryNode:
    return MemoryNode(memory_type=kind, memory_target=target, content=content, **extra)


def add_one(store, item: MemoryNode, vector: np.ndarray | None = None) -> MemoryNode:
    [(stored, _)] = store.add([item], np.stack([unit(1.0) if vector is None else vector]))
    return stored


def test_add_get_round_trip_keeps_every_field(open_store) -> None:
    store = open_store()
    original = node(
        "Alice prefers tabs · 喜欢制表符",
        when_to_use="formatting code",
        message_time="2026-02-28 10:00:00",
        author="summarizer",
        metadata={"source": "chat", "nested": {"a": [1, 2]}, "n": 3, "ok": True},
    )
    stored = add_one(store, original)
    fetched = store.get(original.memory_id)
    assert stored.memory_id == fetched.memory_id == original.memory_id
    assert fetched.to_dict() == original.to_dict()
    assert store.get("no-such-id") is None


def test_same_content_same_target_is_stored_once(open_store) -> None:
    store = open_store()
    first = add_one(store, node("User likes green tea"))
    results = store.add(
        [node("User  likes green tea "), node("User likes green tea", target="bob")],
        np.stack([unit(1.0), unit(1.0)]),
    )
    assert results[0] == (first, False) or (results[0][0].memory_id, results[0][1]) == (
        first.memory_id,
        False,
    )
    assert results[1][1] is True and results[1][0].memory_target == "bob"
    assert store.count([]) == 2


def test_the_same_content_twice_in_one_add_is_stored_once(open_store) -> None:
    store = open_store()
    first, twin = node("User likes oolong"), node("User  likes oolong")
    results = store.add([first, twin], np.stack([unit(1.0), unit(0.0, 1.0)]))
    assert [(n.memory_id, created) for n, created in results] == [
        (first.memory_id, True),
        (first.memory_id, False),
    ]
    assert store.count([]) == 1


def test_update_keeps_the_id_merges_metadata_and_refuses_a_duplicate(open_store) -> None:
    store = open_store()
    a = add_one(store, node("likes tea", metadata={"keep": 1, "drop": 2}))
    b = add_one(store, node("likes coffee"))
    updated = store.update(
        a.memory_id,
        {"content": "likes green tea", "time_modified": "2026-03-01 09:00:00"},
        {"drop": None, "new": "x"},
        unit(0.0, 1.0),
    )
    assert updated.memory_id == a.memory_id and updated.content == "likes green tea"
    again = store.get(a.memory_id)
    assert again.metadata == {"keep": 1, "new": "x"}
    assert again.time_modified == "2026-03-01 09:00:00"
    assert store.vector_search(unit(0.0, 1.0), [], 1)[0].memory_id == a.memory_id
    with pytest.raises(DuplicateContentError) as info:
        store.update(a.memory_id, {"content": "likes coffee"}, None, None)
    assert info.value.existing_id == b.memory_id
    assert store.get(a.memory_id).content == "likes green tea"
    assert store.update("missing", {"content": "x"}, None, None) is None


def test_delete_and_delete_where(open_store) -> None:
    store = open_store()
    ids = [
        add_one(store, node(f"fact {i}", target="t" if i % 2 else "u")).memory_id for i in range(6)
    ]
    assert store.delete([ids[0], "unknown"]) == 1
    assert store.get(ids[0]) is None
    assert store.delete_where(compile_filters({"memory_target": "t"})) == 3
    assert store.count([]) == 2
    assert store.vector_search(unit(1.0), compile_filters({"memory_target": "t"}), 5) == []
    assert store.delete_where([]) == 2 and store.count([]) == 0


def _seed_list(store) -> list[MemoryNode]:
    items = [
        node("a", time_created="2026-01-01 08:00:00", metadata={"priority": 3, "tag": "x"}),
        node("b", time_created="2026-01-02 08:00:00", metadata={"priority": 1}),
        node("c", time_created="2026-01-03 08:00:00", message_time="2026-01-03 07:00:00"),
        node("d", time_created="2026-01-04 08:00:00", metadata={"priority": 2, "tag": "x"}),
        node("e", target="bob", time_created="2026-01-05 08:00:00", metadata={"priority": 9}),
    ]
    for item in items:
        add_one(store, item)
    return items


def contents(nodes: list[MemoryNode]) -> list[str]:
    return [n.content for n in nodes]


def test_list_filters_ranges_sorting_and_limits(open_store) -> None:
    store = open_store()
    _seed_list(store)
    alice = {"memory_target": "alice"}
    assert contents(store.list_nodes(compile_filters(alice), "time_created", True, None)) == list(
        "dcba"
    )
    assert contents(store.list_nodes(compile_filters(alice), "time_created", False, 2)) == list(
        "ab"
    )
    ranged = {**alice, "time_created": ["2026-01-02", "2026-01-03"]}  # whole days, inclusive
    assert contents(store.list_nodes(compile_filters(ranged), "time_created", False, None)) == list(
        "bc"
    )
    open_end = {"time_created": ["2026-01-04 08:00:00", None]}
    assert contents(store.list_nodes(compile_filters(open_end), None, False, None)) == list("de")
    assert contents(store.list_nodes(compile_filters({"tag": "x"}), None, False, None)) == list(
        "ad"
    )
    numeric = {"memory_target": "alice", "priority": [2, 3]}
    assert contents(store.list_nodes(compile_filters(numeric), "priority", False, None)) == list(
        "da"
    )
    # missing values sort last in both directions; ties keep insertion order
    assert contents(store.list_nodes(compile_filters(alice), "priority", False, None)) == list(
        "bdac"
    )
    assert contents(store.list_nodes(compile_filters(alice), "priority", True, None)) == list(
        "adbc"
    )
    assert contents(store.list_nodes(compile_filters(alice), "message_time", True, None)) == list(
        "cdba"
    )
    assert store.count(compile_filters({"metadata.priority": [1, 100]})) == 4
    assert contents(
        store.list_nodes(compile_filters({"message_time": None, **alice}), None, False, 9)
    ) == list("abd")


def test_vector_search_is_filtered_ranked_and_limited(open_store) -> None:
    store = open_store()
    near = add_one(store, node("near"), unit(1.0, 0.1))
    mid = add_one(store, node("mid", metadata={"k": "v"}), unit(1.0, 1.0))
    add_one(store, node("far"), unit(0.0, 0.0, 1.0))
    add_one(store, node("other user", target="bob"), unit(1.0))
    hits = store.vector_search(unit(1.0), compile_filters({"memory_target": "alice"}), 2)
    assert [h.memory_id for h in hits] == [near.memory_id, mid.memory_id]
    assert hits[0].score == pytest.approx(float(unit(1.0) @ unit(1.0, 0.1)), abs=1e-4)
    assert hits[0].score > hits[1].score
    only_k = store.vector_search(unit(1.0), compile_filters({"k": "v"}), 5)
    assert [h.memory_id for h in only_k] == [mid.memory_id]
    assert len(store.vector_search(unit(1.0), [], 10)) == 4


def test_searches_reach_a_match_behind_many_nearer_nodes_the_filter_drops(open_store) -> None:
    """A filter the engine may not apply (a metadata key) drops its first hits: the search asks
    it for more until the match is found."""
    store = open_store()
    for n in range(12):
        add_one(store, node(f"deploy note {n} deploy deploy"), unit(1.0, 0.01 * n))
    far = add_one(store, node("deploy far away", metadata={"k": "v"}), unit(0.0, 1.0))
    only_k = compile_filters({"k": "v"})
    assert [h.memory_id for h in store.vector_search(unit(1.0), only_k, 1)] == [far.memory_id]
    found = store.keyword_search(search_terms("deploy"), only_k, 2)
    assert [h.memory_id for h in found] == [far.memory_id]


def test_keyword_search_finds_terms_in_english_and_chinese(open_store) -> None:
    store = open_store()
    deploy = add_one(store, node("We deploy with make ship on Fridays"))
    add_one(store, node("Lunch is at noon"))
    chinese = add_one(store, node("用户喜欢喝绿茶"))
    add_one(store, node("deploying is done by bob", target="bob"))
    alice = compile_filters({"memory_target": "alice"})
    hits = store.keyword_search(search_terms("how do we deploy?"), alice, 5)
    assert [h.memory_id for h in hits] == [deploy.memory_id] and hits[0].score > 0
    assert [h.memory_id for h in store.keyword_search(search_terms("绿茶"), alice, 5)] == [
        chinese.memory_id
    ]
    assert store.keyword_search(search_terms("deploy"), [], 5)[0].memory_id in {
        deploy.memory_id,
        store.list_nodes(compile_filters({"memory_target": "bob"}), None, False, 1)[0].memory_id,
    }
    assert store.keyword_search([], alice, 5) == []


def test_parallel_adds_and_updates_lose_nothing(open_store) -> None:
    store = open_store()
    target = add_one(store, node("shared node"))
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        try:
            for i in range(15):
                store.add([node(f"worker {k} fact {i}")], np.stack([unit(1.0, k, i)]))
                store.add([node("everyone adds this")], np.stack([unit(0.5)]))
            store.update(target.memory_id, {}, {f"key_{k}": k}, None)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.count([]) == 1 + 6 * 15 + 1
    assert store.get(target.memory_id).metadata == {f"key_{k}": k for k in range(6)}


NASTY = "x'); DROP TABLE memories; DROP TABLE reme; -- \" ` $$ \\ %s {table}"


def test_metadata_keys_and_values_with_quotes_and_sql_are_only_data(open_store) -> None:
    store = open_store()
    bad = add_one(store, node(NASTY, metadata={NASTY: NASTY, "o'k": 'it\'s "fine"'}))
    add_one(store, node("plain"))
    for filters in ({NASTY: NASTY}, {"o'k": 'it\'s "fine"'}, {"content": NASTY}):
        assert [
            n.memory_id for n in store.list_nodes(compile_filters(filters), NASTY, True, 5)
        ] == [bad.memory_id]
    assert store.list_nodes(compile_filters({NASTY: "other"}), None, False, 5) == []
    assert store.count(compile_filters({NASTY: [NASTY, None]})) == 1
    assert store.keyword_search(search_terms(NASTY), [], 5)[0].memory_id == bad.memory_id
    assert store.get(bad.memory_id).metadata[NASTY] == NASTY
    odd = add_one(store, node("odd keys", metadata={"a.b": 1, "x[0]": 2, "$": 3}))
    for key, value in (("a.b", 1), ("x[0]", 2), ("$", 3)):
        found = store.list_nodes(compile_filters({f"metadata.{key}": value}), key, False, 5)
        assert [n.memory_id for n in found] == [odd.memory_id], key
    assert store.count([]) == 3


def test_everything_survives_a_restart(open_store) -> None:
    store = open_store()
    kept = add_one(store, node("persisted fact", metadata={"a": 1}), unit(0.0, 1.0))
    gone = add_one(store, node("deleted fact"), unit(1.0))
    store.update(kept.memory_id, {"content": "persisted fact, edited"}, None, None)
    store.delete([gone.memory_id])
    store.close()
    reopened = open_store()
    assert reopened.get(kept.memory_id).content == "persisted fact, edited"
    assert reopened.get(gone.memory_id) is None
    assert reopened.vector_search(unit(0.0, 1.0), [], 1)[0].memory_id == kept.memory_id
    assert reopened.keyword_search(search_terms("edited"), [], 1)[0].memory_id == kept.memory_id


def test_a_change_of_embedding_dimensions_is_refused_clearly(open_store) -> None:
    store = open_store(8)
    add_one(store, node("eight dims"))
    store.close()
    with pytest.raises(VectorStoreError, match="8-d vectors but the embedding model gives 16-d"):
        open_store(16)


def test_an_unreachable_postgres_fails_with_one_clear_line(tmp_path) -> None:
    config = {"backend": "pgvector", "dsn": "postgresql://reme:secret@127.0.0.1:1/memories"}
    with pytest.raises(VectorStoreError) as info:
        make_store(config, tmp_path, 8)
    message = str(info.value)
    assert "cannot reach PostgreSQL at 127.0.0.1:1/memories" in message
    assert "secret" not in message and "\n" not in message


def test_a_damaged_local_store_file_fails_with_one_clear_line(tmp_path) -> None:
    folder = tmp_path / "vector_store"
    folder.mkdir()
    (folder / "memories.sqlite3").write_bytes(b"this is not a database" * 100)
    with pytest.raises(VectorStoreError, match="cannot open the memory store"):
        make_store({"backend": "local"}, tmp_path, 8)


def test_every_backend_sees_what_another_connection_wrote(open_store) -> None:
    first, second = open_store(), open_store()  # e.g. the assistant and `remecli memories`
    written = add_one(first, node("written by the first"), unit(0.0, 1.0))
    assert second.vector_search(unit(0.0, 1.0), [], 1)[0].memory_id == written.memory_id
    second.delete([written.memory_id])
    assert first.vector_search(unit(0.0, 1.0), [], 5) == []


def test_a_postgres_that_goes_away_fails_with_one_clear_line() -> None:
    import shutil
    import tempfile
    import warnings
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="remecli-pg-lost-"))
    folder.chmod(0o755)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver

            server = pgserver.get_server(folder / "data", cleanup_mode="stop")
        store = make_store(
            {"backend": "pgvector", "dsn": server.get_uri(), "connect_timeout": 2}, folder, 8
        )
        kept = add_one(store, node("before the outage"))
        server.cleanup()  # the server stops
        with pytest.raises(VectorStoreError) as info:
            store.get(kept.memory_id)
        assert "PostgreSQL at" in str(info.value) and "\n" not in str(info.value)
        store.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
