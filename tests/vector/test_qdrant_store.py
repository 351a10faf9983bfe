"""The qdrant backend beyond the shared contract: the seed's and the reference's config forms,
its local modes (a folder, `:memory:`), one folder per process, batch inserts and clear errors.

No package registry reachable here ships a Qdrant server, so these tests (and the contract suite)
run the official client's local mode: the client's own in-process engine, not a server."""

from __future__ import annotations

import math
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from remecli.vector.filters import compile_filters
from remecli.vector.node import MemoryNode
from remecli.vector.stores import VectorStoreError, make_store
from tests.vector.helpers import make_reme

OPEN_AND_COUNT = (
    "import sys; from pathlib import Path; from remecli.vector.stores import make_store; "
    "print(make_store({'backend': 'qdrant'}, Path(sys.argv[1]), 8).count([]))"
)


def unit(seed: int, dims: int = 8) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=dims).astype(np.float32)
    return vector / np.linalg.norm(vector)


async def test_the_seed_config_form_stores_under_the_working_dir(fake_ai, tmp_path) -> None:
    reme = await make_reme(fake_ai, tmp_path, {"backend": "qdrant"}).start()
    added = await reme.add_memory(memory_content="Alice writes Python", user_name="alice")
    listed = await reme.list_memory(user_name="alice")
    assert [n.memory_id for n in listed] == [added.memory_id]
    found = await reme.retrieve_memory(query="Python", user_name="alice", return_dict=True)
    assert added.memory_id in str(found)
    await reme.close()
    folder = tmp_path / "vector_store" / "qdrant"
    assert (folder / "collection" / "reme").is_dir()
    for path in [folder, *folder.rglob("*")]:  # memories are private to the user
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), f"{path} is {oct(mode)}"


def test_the_reference_config_keys_are_accepted(tmp_path) -> None:
    config = {
        "backend": "qdrant",
        "collection_name": "memories",
        "db_path": str(tmp_path / "qdrant"),
        "port": 6333,
        "grpc_port": 6334,
        "prefer_grpc": False,
        "distance": "cosine",
        "on_disk": True,
        "embedding_model": "text-embedding-v4",
    }
    store = make_store(config, tmp_path, 8)
    item = MemoryNode(memory_type="personal", memory_target="alice", content="likes tea")
    store.add([item], np.stack([unit(1)]))
    store.close()
    again = make_store(config, tmp_path, 8)
    assert again.get(item.memory_id).content == "likes tea"
    assert (tmp_path / "qdrant" / "collection" / "memories").is_dir()
    again.close()


def test_in_memory_mode_keeps_nothing_after_close(tmp_path) -> None:
    config = {"backend": "qdrant", "path": ":memory:"}
    store = make_store(dict(config), tmp_path, 8)
    store.add([MemoryNode("personal", "alice", "short lived")], np.stack([unit(2)]))
    assert store.count([]) == 1
    store.close()
    fresh = make_store(dict(config), tmp_path, 8)
    assert fresh.count([]) == 0
    fresh.close()
    assert not (tmp_path / "vector_store").exists()


def test_a_batch_larger_than_one_upsert_is_stored_once_each(tmp_path) -> None:
    # in memory: the on-disk local mode commits each point (~40 ms apiece on this machine)
    store = make_store({"backend": "qdrant", "path": ":memory:"}, tmp_path, 8)
    nodes = [MemoryNode("personal", f"u{i % 3}", f"fact number {i}") for i in range(1200)]
    nodes.append(MemoryNode("personal", "u0", "fact number 0"))  # same as the first
    results = store.add(nodes, np.stack([unit(i) for i in range(len(nodes))]))
    assert sum(1 for _, new in results if new) == 1200
    assert results[-1] == (nodes[0], False)
    assert store.count([]) == 1200
    assert store.count(compile_filters({"memory_target": "u1"})) == 400
    hits = store.vector_search(unit(7), compile_filters({"memory_target": "u1"}), 3)
    assert hits[0].memory_id == nodes[7].memory_id and hits[0].score == pytest.approx(1.0)
    store.close()


def test_a_folder_held_by_another_process_fails_with_one_clear_line(tmp_path) -> None:
    holder = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from remecli.vector.stores import make_store
        store = make_store({{"backend": "qdrant"}}, Path({str(tmp_path)!r}), 8)
        print("ready", flush=True)
        sys.stdin.readline()
        store.close()
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        with pytest.raises(VectorStoreError) as info:
            make_store({"backend": "qdrant"}, tmp_path, 8)
        message = str(info.value)
        assert "serves one process" in message and "Qdrant server" in message
        assert "\n" not in message
    finally:
        process.communicate("\n", timeout=60)
    freed = make_store({"backend": "qdrant"}, tmp_path, 8)
    assert freed.count([]) == 0
    freed.close()


@pytest.mark.filterwarnings("ignore:Api key is used with an insecure connection")
def test_an_unreachable_server_fails_with_one_clear_line(tmp_path: Path) -> None:
    config = {"backend": "qdrant", "url": "http://127.0.0.1:1", "api_key": "secret-key"}
    with pytest.raises(VectorStoreError) as info:
        make_store(config, tmp_path, 8)
    message = str(info.value)
    assert "cannot reach Qdrant at http://127.0.0.1:1" in message
    assert "secret-key" not in message and "\n" not in message


def test_options_it_cannot_honour_are_refused(tmp_path: Path) -> None:
    with pytest.raises(VectorStoreError, match="distance 'dot' is not supported"):
        make_store({"backend": "qdrant", "distance": "dot"}, tmp_path, 8)
    with pytest.raises(VectorStoreError, match="unknown option.*: colour"):
        make_store({"backend": "qdrant", "colour": "red"}, tmp_path, 8)
    # the refused store gave its folder back: another process can open it
    done = subprocess.run(
        [sys.executable, "-c", OPEN_AND_COUNT, str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.strip() == "0", done.stderr


def test_keyword_scores_are_qdrants_bm25_of_the_sparse_term_vectors(tmp_path) -> None:
    from remecli.vector.stores.qdrant_points import term_index, term_weights
    from remecli.vector.terms import document_terms, search_terms

    store = make_store({"backend": "qdrant", "path": ":memory:"}, tmp_path, 8)
    texts = ["We deploy with make ship", "Lunch is at noon", "Deploy, deploy, deploy!"]
    nodes = [MemoryNode("personal", "alice", text) for text in texts]
    store.add(nodes, np.stack([unit(i) for i in range(3)]))
    [term] = search_terms("deploy")
    hits = store.keyword_search([term], [], 5)
    assert [h.memory_id for h in hits] == [nodes[2].memory_id, nodes[0].memory_id]
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # 3 memories, 2 hold the term
    for hit, item in zip(hits, (nodes[2], nodes[0]), strict=True):
        weight = term_weights(document_terms(item.embedding_text()))[term_index(term)]
        assert hit.score == pytest.approx(idf * weight, rel=1e-4)
    store.close()
