"""Search that knows time: timed claims in hits marked valid or superseded on `as_of` (default
today), hits whose claims no longer (or not yet) held ranked after the rest."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from remecli.ops import JobRunner

NOW = "# MEMORY\n\n- Alice lives in Berlin (since 2026-03-02) [[memory/2026-03-02.md]]\n"
BEFORE = (
    "# 2024-05-01\n\n- ~~Alice lives in Munich~~ (2024-05-01 to 2026-03-02, "
    'replaced by "Alice lives in Berlin")\n'
)


async def _seeded(runner: JobRunner) -> None:
    root = runner.context.root
    (root / "MEMORY.md").write_text(NOW, encoding="utf-8")
    (root / "memory" / "2024-05-01.md").write_text(BEFORE, encoding="utf-8")
    await runner.run("memory_reindex", {})


async def test_current_claims_rank_first_and_superseded_say_what_replaced_them(
    runner: JobRunner,
) -> None:
    await _seeded(runner)
    found = await runner.run("memory_search", {"query": "where does Alice live", "source": "notes"})
    paths = [hit["path"] for hit in found["results"]]
    assert paths[:2] == ["MEMORY.md", "memory/2024-05-01.md"]
    now, old = found["results"][:2]
    assert now["claims"] == [
        {
            "text": "Alice lives in Berlin",
            "since": "2026-03-02",
            "until": "",
            "replaced_by": "",
            "valid": True,
        }
    ]
    assert "superseded" not in now
    assert old["superseded"] == {
        "until": "2026-03-02",
        "replaced_by": "Alice lives in Berlin",
        "not_yet": False,
    }


def test_a_hits_own_claims_come_from_its_indexed_chunk_not_its_file(tmp_path: Path) -> None:
    """Before, marking claims read every hit's file again on each search; the hit now carries
    its chunk's text from the index, so no file is read for a hit's own claims."""
    from remecli.ops.claim_marks import mark_claims
    from remecli.search import MemoryIndex, SearchRequest
    from remecli.search.hits import ClaimMark
    from tests.search.helpers import settings

    note = tmp_path / "memory" / "2024-05-01.md"
    note.parent.mkdir(parents=True)
    note.write_text(BEFORE, encoding="utf-8")
    index = MemoryIndex.open(tmp_path, settings())
    try:
        index.sync_blocking()
        hits = index.search_blocking(SearchRequest(query="Alice lives in Munich"))
    finally:
        index.close()
    note.unlink()  # nothing left to read: only the index has the text
    mark_claims(hits, tmp_path, dt.date(2025, 6, 1))
    assert hits[0].claims == [
        ClaimMark(
            text="Alice lives in Munich",
            since="2024-05-01",
            until="2026-03-02",
            replaced_by="Alice lives in Berlin",
            valid=True,
        )
    ]


async def test_as_of_answers_what_was_true_then(runner: JobRunner) -> None:
    await _seeded(runner)
    then = await runner.run(
        "memory_search",
        {"query": "where does Alice live", "source": "notes", "as_of": "2025-06-01"},
    )
    first, second = then["results"][:2]
    assert first["path"] == "memory/2024-05-01.md" and first["claims"][0]["valid"]
    assert second["path"] == "MEMORY.md" and second["superseded"]["not_yet"]


async def test_hits_without_timed_claims_are_left_alone(runner: JobRunner) -> None:
    found = await runner.run("memory_search", {"query": "deploy make ship"})
    assert found["results"] and all("claims" not in hit for hit in found["results"])


def test_the_cli_says_which_claim_held_and_what_replaced_it() -> None:
    from remecli.search.hits import ClaimMark
    from remecli.surfaces.cli.search import claims_note

    hit = {
        "claims": [
            {
                "text": "Lives in Munich",
                "since": "2024-05-01",
                "until": "2026-03-02",
                "replaced_by": "Lives in Berlin",
                "valid": True,
            },
            {
                "text": "Lives in Berlin",
                "since": "2026-03-02",
                "until": "",
                "replaced_by": "",
                "valid": False,
            },
        ]
    }
    claims = [ClaimMark.model_validate(claim) for claim in hit["claims"]]
    assert claims_note(claims, "2025-06-01").splitlines()[1:] == [
        "  true on 2025-06-01: Lives in Munich (2024-05-01 to 2026-03-02, replaced by "
        "Lives in Berlin)",
        "  not true on 2025-06-01: Lives in Berlin (since 2026-03-02)",
    ]
    assert claims_note(None) == ""


NODE = """---
name: Where Alice lives
description: Alice lives in Berlin
---
Alice lives in Berlin.

## History
- Alice lives in Berlin (since 2026-03-02) [[memory/2026-03-02/move.md]]
- ~~Alice lives in Munich~~ (2024-05-01 to 2026-03-02, replaced by "Alice lives in Berlin") \
[[memory/2024-05-01/munich.md]]

## Sources
- [[memory/2024-05-01/munich.md]]
- [[memory/2026-03-02/move.md]]
"""


async def test_a_card_that_supports_only_a_superseded_claim_ranks_after(
    runner: JobRunner,
) -> None:
    root = runner.context.root
    for rel, text in {
        "digest/personal/where-alice-lives.md": NODE,
        "memory/2024-05-01/munich.md": "# Munich\n\nAlice lives in Munich, Alice loves Munich.\n",
        "memory/2026-03-02/move.md": "# Move\n\nAlice moved; Alice lives in Berlin now.\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    await runner.run("memory_reindex", {})
    query = {"query": "Alice lives Munich", "source": "memory/"}
    found = (await runner.run("memory_search", query))["results"]
    assert [hit["path"] for hit in found] == [
        "memory/2026-03-02/move.md",
        "memory/2024-05-01/munich.md",
    ]
    assert found[1]["superseded"]["replaced_by"] == "Alice lives in Berlin"
    then = (await runner.run("memory_search", {**query, "as_of": "2025-01-01"}))["results"]
    assert [hit["path"] for hit in then] == [
        "memory/2024-05-01/munich.md",
        "memory/2026-03-02/move.md",
    ]


async def test_changed_facts_lists_every_superseded_claim_newest_first(
    runner: JobRunner,
) -> None:
    root = runner.context.root
    (root / "digest/personal").mkdir(parents=True, exist_ok=True)
    (root / "digest/personal/where-alice-lives.md").write_text(NODE, encoding="utf-8")
    (root / "MEMORY.md").write_text(
        "# MEMORY\n- ~~Drives a Golf~~ (until 2025-01-01)\n- ~~not a claim~~\n", encoding="utf-8"
    )
    found = await runner.run("memory_changed_facts", {})
    assert [(f["path"], f["line"], f["text"], f["until"]) for f in found["facts"]] == [
        ("digest/personal/where-alice-lives.md", 9, "Alice lives in Munich", "2026-03-02"),
        ("MEMORY.md", 2, "Drives a Golf", "2025-01-01"),
    ]
    assert found["facts"][0]["replaced_by"] == "Alice lives in Berlin"
    recent = await runner.run("memory_changed_facts", {"since": "2026-01-01"})
    assert recent["total"] == 1
