"""The knowledge-base jobs on a real runtime: write a card, follow links, list versions, dream."""

from __future__ import annotations

import datetime as dt

import pytest

from remecli.ops import JOBS, JobRunner
from remecli.ops.errors import EditConflict, NotFound


async def test_a_written_card_is_indexed_on_its_day_page_and_versioned(
    runner: JobRunner, tmp_path
) -> None:
    root = tmp_path / ".reme"
    written = await runner.run(
        "memory_write_card",
        {
            "name": "Release train",
            "description": "Releases leave every Friday at 15:00; see [[MEMORY.md]].",
            "content": "# Release train\n\n- Cut the branch Thursday.\n- Ship Friday 15:00.\n",
            "date": "2025-02-03",
            "tags": ["release"],
        },
    )
    assert written["path"] == "memory/2025-02-03/release-train.md" and written["created"]
    card = (root / written["path"]).read_text()
    assert "name: Release train" in card and "- release" in card
    day_page = (root / "memory" / "2025-02-03.md").read_text()
    assert "<!-- cards:auto -->" in day_page and "release-train.md" in day_page
    links = await runner.run("memory_links", {"path": "Release train", "direction": "out"})
    assert [item["path"] for item in links["out"]] == ["MEMORY.md"]
    with pytest.raises(EditConflict, match="edit"):  # replacing would lose lines
        await runner.run(
            "memory_write_card",
            {
                "name": "Release train",
                "description": "Shorter.",
                "content": "# x\n",
                "date": "2025-02-03",
            },
        )
    history = await runner.run("memory_history", {"path": written["path"]})
    assert [v["source"] for v in history["versions"]][-1] == "memory_write_card"


async def test_edits_through_the_job_are_versioned(runner: JobRunner) -> None:
    await runner.run("memory_edit", {"path": "MEMORY.md", "old": "stg-7", "new": "stg-8"})
    history = await runner.run("memory_history", {"path": "MEMORY.md"})
    assert history["versions"] and history["versions"][-1]["source"] == "memory_edit"


async def test_links_of_an_unknown_note_say_what_to_do(runner: JobRunner) -> None:
    with pytest.raises(NotFound, match="memory_search"):
        await runner.run("memory_links", {"path": "no such note"})


async def test_dream_with_nothing_new(runner: JobRunner) -> None:
    assert not JOBS.get("memory_dream").read_only
    result = await runner.run("memory_dream", {"date": dt.date.today().isoformat()})
    assert result["status"] == "nothing" and result["message"]
