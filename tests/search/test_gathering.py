"""Retrieval that gathers every piece: diversity across files and sub-queries of a
multi-part question, through a real keyword index on small notes."""

from __future__ import annotations

from pathlib import Path

from remecli.search import MemoryIndex, SearchRequest
from remecli.search.decompose import sub_queries
from remecli.search.fusion import Fused, merge_parts
from tests.search.helpers import settings

# One session talks about pottery at length (three chunks); another mentions it once.
LONG_SESSION = """# Monday
Jon: pottery, pottery, pottery: my pottery class made a bowl.

# Tuesday
Jon: more pottery today, pottery with glaze; pottery is my thing now.

# Wednesday
Jon: pottery again! The pottery kiln fired a vase, pottery all evening.
"""
SHORT_SESSION = "# Later\nJon: I sold one pottery mug at the market last spring.\n"


def _write(folder: Path, files: dict[str, str]) -> Path:
    (folder / "memory").mkdir()
    for name, text in files.items():
        (folder / "memory" / name).write_text(text, encoding="utf-8")
    return folder


def _files_of(folder: Path, query: str, limit: int, **changes: float | bool) -> list[str]:
    index = MemoryIndex.open(folder, settings(chunk_tokens=40, chunk_overlap=0, **changes))
    try:
        index.sync_blocking()
        return [
            hit.path
            for hit in index.search_blocking(
                SearchRequest(query=query, max_results=limit, min_score=0.0)
            )
        ]
    finally:
        index.close()


def test_diversity_keeps_a_second_sessions_chunk_in_the_top_k(tmp_path: Path) -> None:
    folder = _write(tmp_path, {"s1.md": LONG_SESSION, "s2.md": SHORT_SESSION})
    plain = _files_of(folder, "Jon pottery", 3, file_diversity=0.0)
    assert plain == ["memory/s1.md"] * 3
    diverse = _files_of(folder, "Jon pottery", 3, file_diversity=0.5)
    assert "memory/s2.md" in diverse
    assert diverse[0] == "memory/s1.md"


def test_diversity_scores_still_fall_from_the_first_hit(tmp_path: Path) -> None:
    folder = _write(tmp_path, {"s1.md": LONG_SESSION, "s2.md": SHORT_SESSION})
    index = MemoryIndex.open(folder, settings(chunk_tokens=40, chunk_overlap=0))
    try:
        index.sync_blocking()
        scores = [
            hit.score
            for hit in index.search_blocking(
                SearchRequest(query="Jon pottery", max_results=4, min_score=0.0)
            )
        ]
    finally:
        index.close()
    assert scores == sorted(scores, reverse=True)
    assert scores[0] > 0.5  # the first hit keeps its fused score (no penalty; not min-max 1)


# Jon's three market chunks match more of the question than the one chunk about Gina's cake.
JON_MARKET = """# Saturday
Jon: I sell lemons at the market.

# Sunday
Jon: at the market I sell apples now.

# Monday
Jon: the market lets me sell pears.
"""
GINA_CAKE = (
    "# Weekend\nA long weekend with the family, the garden, the neighbours and the old dog; "
    "among all of it Gina got a cake.\n"
)
OTHERS = "# Calls\nGina phoned twice.\n\n# Recipes\nA cake needs flour.\n\n# Visit\nGina came by.\n"


def test_query_parts_bring_the_second_halfs_piece_into_the_top(tmp_path: Path) -> None:
    files = {"jon.md": JON_MARKET, "gina.md": GINA_CAKE, "others.md": OTHERS}
    folder = _write(tmp_path, files)
    question = "What did Jon sell at the market, and which cake did Gina bake?"
    whole_only = _files_of(folder, question, 3, file_diversity=0.0, query_parts=False)
    assert whole_only == ["memory/jon.md"] * 3
    with_parts = _files_of(folder, question, 3, file_diversity=0.0, query_parts=True)
    assert with_parts[:2] == ["memory/jon.md", "memory/gina.md"]


def test_sub_queries_split_name_pairs_and_clauses() -> None:
    assert sub_queries("What do Jon and Gina both have in common?") == [
        "What do Jon have in common",
        "What do Gina have in common",
    ]
    assert sub_queries("Who did Evan meet in Canada, and who did he come back with?") == [
        "Who did Evan meet in Canada",
        "who did he come back with Evan Canada",
    ]
    assert sub_queries("What exercises has John done?") == []
    assert sub_queries("Where is Paris?") == []


def test_merge_parts_interleaves_the_whole_and_each_part() -> None:
    whole = [Fused(1, 1.0, ["bm25"]), Fused(2, 0.9, ["vector"]), Fused(4, 0.8, ["bm25"])]
    parts = [[Fused(3, 1.0, ["bm25"]), Fused(2, 0.95, ["bm25"])]]
    merged = merge_parts(whole, parts)
    assert [(f.chunk_id, f.score) for f in merged] == [(1, 1.0), (3, 1.0), (2, 0.9), (4, 0.8)]
    assert merged[2].signals == ["bm25", "vector"]
