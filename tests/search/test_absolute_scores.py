"""Scores that mean something (issue 38): nonsense finds nothing, a score does not depend on
what else the memory holds, and one line range is listed once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remecli.__main__ import main
from remecli.search import MemoryIndex, SearchRequest
from remecli.search.ranking import Candidates, fused_candidates, select
from remecli.search.types import Chunk
from tests.search.fake_embedder import CharNgramEmbedder
from tests.search.helpers import settings

NOTES = {
    "MEMORY.md": "# Preferences\n- The user prefers Python 3.12 and uses uv for packaging.\n"
    "- Coffee: a flat white every morning, oat milk, no sugar.\n",
    "memory/2025-01-02.md": "# 2025-01-02\n\n## Infrastructure\nWe discussed the Kubernetes "
    "migration plan and the nightly database backup schedule.\n\n## Cooking\nTried a new "
    "sourdough recipe; the crumb was too dense.\n",
    "memory/2025-01-05.md": "# 2025-01-05\n\n## Trip\nBooked flights to Lisbon for the "
    "conference in June.\n\n## Reading\nFinished a book on tracer bullets and broken windows.\n",
}
MORE = {
    "memory/2025-02-01.md": "# 2025-02-01\n\n## Garden\nPlanted tomatoes and basil by the "
    "fence; the soil needs more compost.\n",
    "memory/2025-02-03.md": "# 2025-02-03\n\n## Car\nThe mechanic replaced the brake pads on "
    "the old Volvo.\n",
    "memory/2025-02-05.md": "# 2025-02-05\n\n## Bakery\nWorked a shift at the bakery, shaping "
    "baguettes before dawn.\n",  # closer to "baking bread" than the sourdough, no shared word
}


def write(root: Path, notes: dict[str, str]) -> None:
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


@pytest.mark.local_model
async def test_nonsense_finds_nothing_and_a_score_does_not_depend_on_the_rest(
    tmp_path: Path,
) -> None:
    """Before: five vector-only hits for gibberish, the first at 1.0; a paraphrase's hit read
    1.0, then less once a closer note was written (min-max among the candidates)."""
    write(tmp_path, NOTES)
    index = MemoryIndex.open(tmp_path, settings(embedding={"backend": "local"}))
    try:
        await index.sync()
        for nonsense in ("xqzvbnm flurbo", "zzzqqq nothing"):
            assert (
                await index.search(SearchRequest(query=nonsense, max_results=5, min_score=0.0))
                == []
            ), nonsense
        [hit, *_] = await index.search(
            SearchRequest(query="baking bread", max_results=5, min_score=0.0)
        )  # no shared word: vectors only
        assert hit.path == "memory/2025-01-02.md" and hit.signals == ["vector"]
        assert hit.heading_path.endswith("Cooking") and hit.score > 0.0
        write(tmp_path, MORE)
        await index.sync()
        assert (
            await index.search(SearchRequest(query="xqzvbnm flurbo", max_results=5, min_score=0.0))
            == []
        )
        again = await index.search(
            SearchRequest(query="baking bread", max_results=5, min_score=0.0)
        )
        assert again[0].path == "memory/2025-02-05.md" and again[0].signals == ["vector"]
        [same] = [h for h in again if (h.path, h.start_line) == (hit.path, hit.start_line)]
        assert same.score == pytest.approx(hit.score, abs=1e-6)
    finally:
        index.close()


async def test_a_line_range_is_listed_once(tmp_path: Path) -> None:
    """A paragraph written as one long line is cut into several chunks of the same range;
    before, each piece that matched was a hit of its own ("memory/long.md:3-3" twice)."""
    pieces = [f"Part {n}: the lighthouse keeper wrote about storm number {n}." for n in range(60)]
    write(tmp_path, {"memory/long.md": "# Log\n\n" + " ".join(pieces) + "\n"})
    index = MemoryIndex.open(tmp_path, settings(), embedder=CharNgramEmbedder())
    try:
        await index.sync()
        chunks = index.store.chunks_of("memory/long.md")
        assert sum(s.chunk.start_line == s.chunk.end_line == 3 for s in chunks) > 1
        hits = await index.search(
            SearchRequest(query="lighthouse keeper storm", max_results=10, min_score=0.0)
        )
        ranges = [(h.path, h.start_line, h.end_line) for h in hits]
        assert ("memory/long.md", 3, 3) in ranges
        assert len(ranges) == len(set(ranges))
    finally:
        index.close()


PYTHON_NOTES = {
    "MEMORY.md": "# Python\n- The user prefers Python 3.12 and uses uv for packaging.\n"
    "- Type hints everywhere; mypy runs in strict mode on the library.\n",
    "memory/2025-11-03.md": "# 2025-11-03\n\n## Release\nPlanned the November release of the "
    "parser: wheels for Linux and macOS, a changelog entry per fix.\n",
    "memory/2025-11-04.md": "# 2025-11-04\n\n## Tests\nThe pytest suite takes four minutes; "
    "the slow part is the fixture that builds the tokenizer.\n",
}


@pytest.mark.parametrize("backend", ["none", pytest.param("local", marks=pytest.mark.local_model)])
async def test_off_topic_real_words_give_only_weak_hits(tmp_path: Path, backend: str) -> None:
    """Before: one word of the query in one note made that note the best keyword match, scaled
    to 1.00 and shown like an answer (`the weather in november` → the release note, 1.00)."""
    write(tmp_path, PYTHON_NOTES)
    index = MemoryIndex.open(tmp_path, settings(embedding={"backend": backend}))
    try:
        await index.sync()
        off_topic = await index.search(
            SearchRequest(query="the weather in november", max_results=5, min_score=0.0)
        )
        assert off_topic and all(hit.weak for hit in off_topic)
        assert [hit.to_dict()["weak"] for hit in off_topic] == [True] * len(off_topic)
        [real, *_] = await index.search(
            SearchRequest(query="november release of the parser", max_results=5, min_score=0.0)
        )
        assert real.path == "memory/2025-11-03.md" and not real.weak
        assert "weak" not in real.to_dict()
    finally:
        index.close()


def test_the_search_command_marks_weak_hits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`remecli search` (the memory_search job, as MCP, HTTP and Studio run it) says so."""
    monkeypatch.delenv("REME_WORKING_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    write(tmp_path, PYTHON_NOTES)
    args = [f"working_dir={tmp_path}", "search.embedding.backend=none"]
    assert main(["search", "the weather in november", *args]) == 0  # through the ops job
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("memory/2025-11-03.md") and " weak  [bm25]" in first
    assert main(["search", "the weather in november", "--json", *args]) == 0
    assert all(hit["weak"] for hit in json.loads(capsys.readouterr().out))


async def test_a_keyword_score_does_not_depend_on_the_rest(tmp_path: Path) -> None:
    """Before: BM25 was scaled among the query's candidates, so the note holding one word of
    the query read 1.0 until a note holding both was written, then about half as much."""
    filler = {
        f"memory/2025-03-{day:02d}.md": f"# 2025-03-{day:02d}\n\n## Day\nA walk by the river, "
        f"then {day} pages of a novel and an early night.\n"
        for day in range(1, 21)
    }
    write(tmp_path, {**NOTES, **filler})
    index = MemoryIndex.open(tmp_path, settings())
    try:
        await index.sync()
        [before] = await index.search(
            SearchRequest(query="sourdough starter", max_results=5, min_score=0.0)
        )
        assert before.heading_path.endswith("Cooking")
        write(
            tmp_path,
            {
                "memory/2025-03-30.md": "# 2025-03-30\n\n## Baking\nFed the sourdough "
                "starter twice; the starter doubled overnight.\n"
            },
        )
        await index.sync()
        best, after = await index.search(
            SearchRequest(query="sourdough starter", max_results=5, min_score=0.0)
        )
        assert best.path == "memory/2025-03-30.md" and after.path == before.path
        assert after.score == pytest.approx(before.score, abs=0.03)
        assert best.score > before.score
    finally:
        index.close()


def test_a_returned_hit_never_reads_zero() -> None:
    """Before: a vector hit just above the floor came back as `score 0.00 [vector]`."""

    def similarity(cosine: float) -> float:  # 0.80 → 0 (no match), 0.90 → 1
        return min(max((cosine - 0.80) / 0.10, 0.0), 1.0)

    found = Candidates(keyword=[(1, 6.0)], vector=[(1, 0.9), (2, 0.8006)], similarity=similarity)
    fused = fused_candidates(found, settings(), transcript_ids={2})
    assert [f.chunk_id for f in fused] == [1, 2] and 0 < fused[1].score < 0.005
    chunks = {
        n: Chunk(f"memory/{n}.md", 1, 2, f"note {n}", source=("transcript" if n == 2 else "notes"))
        for n in (1, 2)
    }
    results = select(fused, lambda ids: {i: chunks[i] for i in ids}, 5)
    assert [r.path for r in results] == ["memory/1.md"]
    assert all(f"{r.score:.2f}" != "0.00" for r in results)


def test_weak_is_the_match_not_the_transcript_weight() -> None:
    """A transcript hit reads 0.6 of its match (notes first); that preference does not make a
    good match weak, and a poor one is weak whatever its source."""
    found = Candidates(keyword=[(1, 0.6), (2, 0.6), (3, 0.2)], keyword_weight=1.0)
    fused = fused_candidates(found, settings(), transcript_ids={2})
    chunks = {
        n: Chunk(f"{n}.md", 1, 2, f"note {n}", source="transcript" if n == 2 else "notes")
        for n in (1, 2, 3)
    }
    results = select(fused, lambda ids: {i: chunks[i] for i in ids}, 5)
    got = [(r.path, round(r.score, 2), r.weak) for r in results]
    assert got == [("1.md", 0.45, False), ("2.md", 0.27, False), ("3.md", 0.18, True)]
