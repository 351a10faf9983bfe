"""Search by project (issue 22.1): a request naming a project finds only what was recorded in it
(a card's `project:`, a transcript record's `project`), on the keyword and the vector side; one
naming none prefers the current project mildly: a tie goes to it, a clearly better hit from
another project still wins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remecli.search import MemoryIndex, SearchRequest
from tests.search.fake_embedder import CharNgramEmbedder
from tests.search.helpers import settings

FILLERS = {
    "shop": "apples pears plums grapes melons lemons limes figs dates kiwis",
    "blog": "hammer saw drill chisel plane level clamp rasp file vise",
    "plain": "red blue green yellow purple orange black white grey pink",
}


def deploy(words: str) -> str:
    """A note about deploying the canary build, made distinct by other words (of one count,
    so that every such note scores the same: near-duplicates would be dropped)."""
    return f"Deploy the canary build. {words}."


def card(folder: Path, name: str, project: str, body: str) -> None:
    path = folder / "memory" / "2025-03-01" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    head = f"---\nname: {name}\ndescription: notes on {name}\n"
    head += f"project: {project}\n" if project else ""
    path.write_text(f"{head}---\n{body}\n", encoding="utf-8")


def transcript(folder: Path, session: str, project: str, text: str) -> None:
    msg = {"name": "user", "role": "user", "id": f"{session}-1"}
    msg["content"] = [{"type": "text", "text": text}]
    record = {"t": "msg", "at": "2025-03-01T10:00:00", "msg": msg, "project": project}
    path = folder / "sessions" / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")


def hits(folder: Path, query: str, *, embed: bool = False, **request: str) -> list[tuple]:
    index = MemoryIndex.open(
        folder, settings(file_diversity=0.0), embedder=CharNgramEmbedder() if embed else None
    )
    try:
        index.sync_blocking()
        found = index.search_blocking(
            SearchRequest(query=query, max_results=10, min_score=0.0, **request)
        )
        return [(h.path, h.project, h.score) for h in found]
    finally:
        index.close()


@pytest.mark.parametrize("embed", [False, True], ids=["keyword", "hybrid"])
def test_a_project_filter_keeps_only_that_projects_notes_and_transcripts(
    tmp_path: Path, embed: bool
) -> None:
    card(tmp_path, "shop-deploy", "shop", deploy(FILLERS["shop"]))
    card(tmp_path, "blog-deploy", "blog", deploy(FILLERS["blog"]))
    card(tmp_path, "plain-deploy", "", deploy(FILLERS["plain"]))
    transcript(tmp_path, "s-shop", "shop", "How do we deploy the canary build?")
    transcript(tmp_path, "s-blog", "blog", "How do we deploy the canary build today?")
    every = hits(tmp_path, "deploy canary build", embed=embed)
    assert {project for _, project, _ in every} == {"shop", "blog", ""}
    shop = hits(tmp_path, "deploy canary build", embed=embed, project="shop")
    assert sorted(path for path, _, _ in shop) == [
        "memory/2025-03-01/shop-deploy.md",
        "sessions/s-shop.jsonl",
    ]
    assert {project for _, project, _ in shop} == {"shop"}
    upper = hits(tmp_path, "deploy canary build", embed=embed, project="SHOP")
    assert upper == shop  # names compare without case
    assert hits(tmp_path, "deploy canary build", embed=embed, project="nowhere") == []
    only = hits(tmp_path, "deploy canary", embed=embed, project="blog", source="transcripts")
    assert [path for path, _, _ in only] == ["sessions/s-blog.jsonl"]


def test_a_tie_goes_to_the_current_project(tmp_path: Path) -> None:
    card(tmp_path, "a-blog", "blog", deploy(FILLERS["blog"]))  # first: it wins ties by default
    card(tmp_path, "b-shop", "shop", deploy(FILLERS["shop"]))
    neutral = hits(tmp_path, "deploy canary")
    assert [p for p, _, _ in neutral[:2]] == [
        "memory/2025-03-01/a-blog.md",
        "memory/2025-03-01/b-shop.md",
    ]
    assert neutral[0][2] == neutral[1][2]  # the same score
    preferred = hits(tmp_path, "deploy canary", prefer_project="shop")
    assert [p for p, _, _ in preferred[:2]] == [
        "memory/2025-03-01/b-shop.md",
        "memory/2025-03-01/a-blog.md",
    ]
    # search.project_boost (0.1): the project's hit gains 0.1, then every score is divided
    # by 1.1 (the date boost's rule), so the tie is broken and scores stay in [0, 1]
    assert preferred[0][2] == pytest.approx((neutral[0][2] + 0.1) / 1.1)
    assert preferred[1][2] == pytest.approx(neutral[1][2] / 1.1)
    # a filter overrides the preference: only that project, no boost
    assert [p for p, _, _ in hits(tmp_path, "deploy canary", project="blog")] == [
        "memory/2025-03-01/a-blog.md"
    ]


def test_a_much_better_hit_from_another_project_still_wins(tmp_path: Path) -> None:
    card(
        tmp_path, "blog-release", "blog", "The canary release of the static builder: make release."
    )
    card(tmp_path, "shop-notes", "shop", "Lunch is at noon; the release is on Friday.")
    found = hits(tmp_path, "canary release static builder", prefer_project="shop")
    assert [p for p, _, _ in found] == [
        "memory/2025-03-01/blog-release.md",
        "memory/2025-03-01/shop-notes.md",
    ]
    assert found[1][1] == "shop" and found[0][2] > found[1][2]  # boosted, and still behind


@pytest.mark.parametrize("embed", [False, True], ids=["keyword", "hybrid"])
def test_the_project_boost_keeps_scores_between_0_and_1(tmp_path: Path, embed: bool) -> None:
    card(tmp_path, "a-blog", "blog", deploy(FILLERS["blog"]))
    card(tmp_path, "b-shop", "shop", "Deploy the canary build to the shop today.")
    card(tmp_path, "c-plain", "", "The canary sings in the morning.")
    found = hits(tmp_path, "deploy canary build shop", embed=embed, prefer_project="shop")
    assert found[0][:2] == ("memory/2025-03-01/b-shop.md", "shop")
    assert all(0.0 <= score <= 1.0 for _, _, score in found)
    assert [s for _, _, s in found] == sorted((s for _, _, s in found), reverse=True)


def test_without_a_hit_of_the_current_project_scores_are_as_without_one(tmp_path: Path) -> None:
    card(tmp_path, "a-blog", "blog", deploy(FILLERS["blog"]))
    card(tmp_path, "c-plain", "", "The canary sings in the morning.")
    neutral = hits(tmp_path, "deploy canary")
    elsewhere = hits(tmp_path, "deploy canary", prefer_project="shop")  # no card of "shop"
    assert elsewhere == neutral


def test_the_boost_is_a_setting(tmp_path: Path) -> None:
    card(tmp_path, "a-blog", "blog", deploy(FILLERS["blog"]))
    card(tmp_path, "b-shop", "shop", deploy(FILLERS["shop"]))
    index = MemoryIndex.open(tmp_path, settings(project_boost=0.0))
    try:
        index.sync_blocking()
        request = SearchRequest(query="deploy canary", max_results=5, prefer_project="shop")
        found = index.search_blocking(request)
    finally:
        index.close()
    assert found[0].path == "memory/2025-03-01/a-blog.md"  # off: ties as without a project
