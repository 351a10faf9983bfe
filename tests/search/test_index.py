"""MemoryIndex: keyword-only path, CJK, identifiers, incremental sync, reindex idempotence."""

from __future__ import annotations

import shutil
from pathlib import Path

from remecli.search import MemoryIndex, SearchRequest
from tests.search.fake_embedder import CharNgramEmbedder
from tests.search.helpers import settings


def _where(results) -> list[tuple[str, int, int]]:
    return [(r.path, r.start_line, r.end_line) for r in results]


async def test_keyword_only_answers_when_words_match(working_dir: Path) -> None:
    index = MemoryIndex.open(working_dir, settings())
    try:
        report = await index.sync()
        assert (report.files_seen, report.files_changed, report.chunks_embedded) == (2, 2, 0)
        results = await index.search(SearchRequest(query="kubernetes migration", min_score=0.1))
        assert results, "keyword search must not return [] when words match"
        assert results[0].path == "memory/2025-01-02.md"
        assert results[0].signals == ["bm25"]
        assert 0.5 < results[0].score < 1.0 and not results[0].weak  # absolute, not min-max 1
        assert "Kubernetes" in results[0].snippet
        assert results[0].heading_path == "2025-01-02 > Infrastructure"
        assert await index.search(SearchRequest(query="zeppelin")) == []
    finally:
        index.close()


async def test_english_stemming_and_exact_identifiers(working_dir: Path) -> None:
    index = MemoryIndex.open(working_dir, settings())
    try:
        await index.sync()
        assert _where(await index.search(SearchRequest(query="deploying", max_results=1))) == [
            ("MEMORY.md", 1, 3)
        ]
        assert _where(await index.search(SearchRequest(query="issue #184", max_results=1))) == [
            ("MEMORY.md", 1, 3)
        ]
        assert _where(
            await index.search(SearchRequest(query="deploy-notes.md", max_results=1))
        ) == [("MEMORY.md", 1, 3)]
        assert _where(await index.search(SearchRequest(query="sourdough", max_results=1))) == [
            ("memory/2025-01-02.md", 6, 7)
        ]
    finally:
        index.close()


async def test_chinese_query_finds_chinese_text(working_dir: Path) -> None:
    index = MemoryIndex.open(working_dir, settings())
    try:
        await index.sync()
        for query in ("部署脚本", "命令行工具", "Rust 工具", "服务器"):
            results = await index.search(SearchRequest(query=query, max_results=1))
            assert _where(results) == [("MEMORY.md", 5, 6)], query
        assert await index.search(SearchRequest(query="天气预报")) == []
    finally:
        index.close()


async def test_incremental_sync_rereads_changed_files_and_embeds_only_new_chunks(
    working_dir: Path,
) -> None:
    embedder = CharNgramEmbedder()
    index = MemoryIndex.open(working_dir, settings(), embedder=embedder)
    try:
        first = await index.sync()
        assert first.chunks_embedded == embedder.documents_embedded == 4
        assert (await index.sync()).files_changed == 0
        note = working_dir / "memory" / "2025-01-02.md"
        note.write_text(note.read_text().replace("too dense", "perfectly open"), encoding="utf-8")
        second = await index.sync()
        assert (second.files_changed, second.chunks_added, second.chunks_removed) == (1, 1, 1)
        assert second.chunks_embedded == 1 and embedder.documents_embedded == 5
        results = await index.search(SearchRequest(query="perfectly open crumb", max_results=1))
        assert results[0].path == "memory/2025-01-02.md"
        assert sorted(results[0].signals) == ["bm25", "vector"]
        assert all(
            "too dense" not in r.snippet
            for r in await index.search(
                SearchRequest(query="too dense", max_results=10, min_score=0)
            )
        )
        note.unlink()
        removed = await index.sync()
        assert (removed.files_removed, removed.chunks_removed) == (1, 2)
        assert index.stats() == {"files": 1, "chunks": 2, "vectors": 2}
    finally:
        index.close()


async def test_state_survives_reopen_and_the_cache_avoids_reembedding(working_dir: Path) -> None:
    embedder = CharNgramEmbedder()
    index = MemoryIndex.open(working_dir, settings(), embedder=embedder)
    await index.sync()
    index.close()
    reopened = MemoryIndex.open(working_dir, settings(), embedder=embedder)
    try:
        assert reopened.stats()["vectors"] == 4
        assert (await reopened.sync()).files_changed == 0
        report = await reopened.reindex()
        assert report.chunks_embedded == 0 and embedder.documents_embedded == 4
    finally:
        reopened.close()


async def test_deleting_the_index_folder_and_reindexing_gives_identical_results(
    working_dir: Path,
) -> None:
    queries = ["database backup", "python packaging", "部署", "issue #184", "bread recipe"]

    async def run_queries() -> list:
        index = MemoryIndex.open(working_dir, settings(), embedder=CharNgramEmbedder())
        try:
            await index.sync()
            return [
                [
                    r.to_dict()
                    for r in await index.search(
                        SearchRequest(query=q, max_results=5, min_score=0.0)
                    )
                ]
                for q in queries
            ]
        finally:
            index.close()

    before = await run_queries()
    shutil.rmtree(working_dir / "index")
    after = await run_queries()
    assert before == after
    assert all(before)


async def test_patterns_select_files_and_the_index_folder_is_ignored(working_dir: Path) -> None:
    (working_dir / "notes.md").write_text("kubernetes elsewhere\n", encoding="utf-8")
    (working_dir / "memory" / "deep" / "er").mkdir(parents=True)
    (working_dir / "memory" / "deep" / "er" / "x.md").write_text("# Deep\nkubernetes deep\n")
    index = MemoryIndex.open(working_dir, settings())
    try:
        assert sorted(index.memory_files()) == [
            "MEMORY.md",
            "memory/2025-01-02.md",
            "memory/deep/er/x.md",
        ]
        await index.sync()
        paths = {
            r.path
            for r in await index.search(
                SearchRequest(query="kubernetes", max_results=10, min_score=0.0)
            )
        }
        assert paths == {"memory/2025-01-02.md", "memory/deep/er/x.md"}
    finally:
        index.close()


async def test_identifiers_still_hit_with_vectors_on(working_dir: Path) -> None:
    index = MemoryIndex.open(working_dir, settings(), embedder=CharNgramEmbedder())
    try:
        await index.sync()
        for query in ("issue #184", "deploy-notes.md", "部署脚本"):
            top = (await index.search(SearchRequest(query=query, max_results=1)))[0]
            assert top.path == "MEMORY.md" and "bm25" in top.signals, query
    finally:
        index.close()


async def test_the_weakest_candidate_of_a_query_still_scores_above_zero(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    for k in range(30):  # 30 notes about herons, more or less
        text = "# Note\n" + "heron " * (k + 1) + "filler " * 40 + "\n"
        (tmp_path / "memory" / f"n{k:02d}.md").write_text(text, encoding="utf-8")
    index = MemoryIndex.open(tmp_path, settings(candidate_multiplier=1))
    try:
        await index.sync()
        results = await index.search(SearchRequest(query="heron", max_results=5, min_score=0.0))
        assert len(results) == 5
        assert 0 < results[-1].score < results[0].score  # not the min-max "0.000"
    finally:
        index.close()
