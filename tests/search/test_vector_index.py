"""VectorIndex: adds and removes cost O(batch), removed ids never come back, a re-add takes the
new vector, the index rebuilt from the store answers the same, and faiss runs on one thread in
the worker thread a search runs in."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import faiss
import numpy as np
import pytest

from remecli.search import MemoryIndex
from remecli.search.vectors import VectorIndex
from tests.search.fake_embedder import CharNgramEmbedder
from tests.search.helpers import settings

DIMS = 32


def _unit_rows(rng: np.random.Generator, count: int, dims: int = DIMS) -> np.ndarray:
    rows = rng.standard_normal((count, dims)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _brute_force(live: dict[int, np.ndarray], query: np.ndarray, k: int) -> list[int]:
    ids = sorted(live)
    scores = np.vstack([live[i] for i in ids]) @ query
    return [ids[j] for j in np.argsort(-scores, kind="stable")[:k]]


def test_random_adds_and_removes_answer_like_a_brute_force_scan() -> None:
    rng, pick = np.random.default_rng(3), random.Random(3)
    index, live = VectorIndex(DIMS), {}
    for _ in range(120):
        if live and pick.random() < 0.4:
            gone = pick.sample(sorted(live), min(len(live), pick.randint(1, 5)))
            index.remove([*gone, 10_000 + pick.randint(0, 9)])  # unknown ids are ignored
            for chunk_id in gone:
                del live[chunk_id]
        else:
            ids = [pick.randint(0, 400) for _ in range(pick.randint(1, 6))]
            rows = _unit_rows(rng, len(ids))
            index.add(ids, rows)
            live.update(zip(ids, rows, strict=True))  # a repeated id: the last row wins
        assert len(index) == len(live)
        assert index.ids() == set(live)
        query = _unit_rows(rng, 1)[0]
        hits = index.search(query, 8)
        assert [i for i, _ in hits] == (_brute_force(live, query, 8) if live else [])
        assert all(i in live for i, _ in hits)
        some = pick.sample(sorted(live), min(len(live), 3)) if live else []
        allowed = [*some, 99_999]
        assert {i for i, _ in index.search(query, 8, allowed)} == set(some)
        scored = dict(index.scores_of(query, [*some, 99_999]))
        assert set(scored) == set(some)
        for chunk_id in some:
            assert scored[chunk_id] == pytest.approx(float(live[chunk_id] @ query), abs=1e-5)


def test_a_removed_id_added_again_is_found_with_its_new_vector() -> None:
    rng = np.random.default_rng(5)
    rows = _unit_rows(rng, 50)
    index = VectorIndex(DIMS)
    index.add(list(range(50)), rows)
    index.remove([7, 8, 49])
    assert 7 not in {i for i, _ in index.search(rows[7], 50)}
    fresh = _unit_rows(rng, 1)
    index.add([7], fresh)
    assert index.search(fresh[0], 1)[0] == (7, pytest.approx(1.0, abs=1e-5))
    assert len(index) == 48
    index.remove(list(range(50)))
    assert len(index) == 0 and index.search(fresh[0], 5) == []


def _single_change_seconds(size: int, rounds: int = 100) -> float:
    """CPU seconds of `rounds` single-vector adds and removes on an index of `size` vectors."""
    rng = np.random.default_rng(1)
    index = VectorIndex(DIMS)
    index.add(list(range(size)), _unit_rows(rng, size))
    extra = _unit_rows(rng, rounds)
    index.add([size + rounds], extra[:1])  # any growth of the matrix happens before timing
    index.remove([size + rounds])
    start = time.process_time()
    for k in range(rounds):
        index.add([size + k], extra[k : k + 1])
        index.remove([size + k])
    return time.process_time() - start


def test_one_add_and_remove_cost_does_not_grow_with_the_index() -> None:
    small = min(_single_change_seconds(1_000) for _ in range(2))
    large = min(_single_change_seconds(64_000) for _ in range(2))
    # O(n) per change (faiss's IndexIDMap2.remove_ids compacts every row) made this ~60x
    assert large < 8 * max(small, 0.002), (small, large)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: faiss uses one thread anyway")
def test_faiss_runs_on_one_thread_in_the_worker_thread_that_searches() -> None:
    index = VectorIndex(DIMS)
    index.add([1, 2], _unit_rows(np.random.default_rng(2), 2))
    seen: list[int] = []

    def worker() -> None:
        index.search(np.ones(DIMS, dtype=np.float32), 1)
        seen.append(faiss.omp_get_max_threads())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [1]


async def test_vectors_rebuilt_from_the_store_answer_the_same_after_removals(
    working_dir: Path,
) -> None:
    (working_dir / "memory" / "2025-01-03.md").write_text(
        "# 2025-01-03\n\n## Garden\n\nPlanted tomatoes and basil by the fence.\n",
        encoding="utf-8",
    )
    embedder = CharNgramEmbedder()
    index = MemoryIndex.open(working_dir, settings(), embedder=embedder)
    try:
        await index.sync()
        assert index.vectors is not None
        gone = {s.id for s in index.store.chunks_of("memory/2025-01-03.md")}
        assert gone and gone <= index.vectors.ids()
        (working_dir / "memory" / "2025-01-03.md").unlink()
        await index.sync()
        assert not gone & index.vectors.ids()
        query = embedder.embed_query("tomatoes basil garden")
        before = index.vectors.search(query, 20)
        assert before and not gone & {i for i, _ in before}
        stored, _ = index.store.all_vectors()
        assert index.vectors.ids() == set(stored)
    finally:
        index.close()
    reopened = MemoryIndex.open(working_dir, settings(), embedder=embedder)
    try:
        assert reopened.vectors is not None
        after = reopened.vectors.search(query, 20)
        assert [i for i, _ in after] == [i for i, _ in before]
        assert [s for _, s in after] == pytest.approx([s for _, s in before], abs=1e-6)
    finally:
        reopened.close()
