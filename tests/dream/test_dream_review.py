"""Dream review (issue 23): each run is a changeset; revert a node or a run through the version
history (undoable); `memory.dream.review: true` keeps a run's changes until approved."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from remecli.notes.layout import WorkingDir
from remecli.ops import JobRunner
from remecli.ops.errors import EditConflict
from tests.dream.conftest import add_card, extraction, receipt, unit
from tests.jobs.conftest import job_settings

DAY = dt.date(2025, 1, 31)
NODE = "digest/procedure/deploy-atlas.md"


def node_text(card: str, claim: str) -> str:
    return (
        "---\nname: Deploy atlas\ndescription: How atlas is deployed.\n---\n"
        f"{claim}\n\n## Sources\n- [[{card}]]\n"
    )


async def started(tmp_path: Path, fake_llm, **changes: object) -> JobRunner:
    settings = job_settings(tmp_path, fake_llm.base_url).with_changes(changes)
    runner = JobRunner.from_settings(settings)
    await runner.start(background=False)
    return runner


@pytest.fixture
async def review_runner(tmp_path: Path, fake_llm) -> AsyncIterator[JobRunner]:
    runner = await started(tmp_path, fake_llm, **{"memory.dream.review": True})
    try:
        yield runner
    finally:
        await runner.close()


@pytest.fixture
async def runner(tmp_path: Path, fake_llm) -> AsyncIterator[JobRunner]:
    runner = await started(tmp_path, fake_llm)
    try:
        yield runner
    finally:
        await runner.close()


async def test_runs_are_changesets_and_revert_goes_through_history(
    runner: JobRunner, fake_llm, tmp_path: Path
) -> None:
    working_dir = WorkingDir(tmp_path / ".reme")
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": node_text(card, "Fridays.")})])
    fake_llm.add_text(receipt("CREATE", NODE))
    first = await runner.run("memory_dream", {"date": DAY.isoformat()})
    assert first["ok"], first
    created = (working_dir.root / NODE).read_text()

    other = add_card(working_dir, DAY, "deploy-days", "Days", "Atlas now also ships on Tuesdays.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "Tuesdays too", other)]))
    fake_llm.add_tool_calls([("read", {"path": NODE})])
    fake_llm.add_tool_calls(
        [("edit", {"path": NODE, "old_text": "Fridays.", "new_text": "Fridays, Tuesdays."})]
    )
    fake_llm.add_text(receipt("REFINE", NODE))
    assert (await runner.run("memory_dream", {"date": DAY.isoformat()}))["ok"]

    runs = (await runner.run("memory_dream_runs", {}))["runs"]
    assert [(r["status"], r["nodes"]) for r in runs] == [
        ("applied", [f"REFINE {NODE}"]),
        ("applied", [f"CREATE {NODE}"]),
    ]
    latest = await runner.run("memory_dream_run", {"run_id": runs[0]["id"]})
    [node] = latest["nodes"]
    assert node["action"] == "REFINE" and node["sources"] == [card, other]
    assert "-Fridays.\n" in node["diff"] and "+Fridays, Tuesdays.\n" in node["diff"]
    history = await runner.run("memory_history", {"path": NODE})
    assert [v["version"] for v in history["versions"]] == [
        node["before_version"],
        node["after_version"],
    ]

    # revert the refinement: the node is as run 1 left it, as a new version
    done = await runner.run("memory_dream_revert", {"run_id": runs[0]["id"], "path": NODE})
    assert [n["error"] for n in done["nodes"]] == [""], done
    assert (working_dir.root / NODE).read_text() == created
    again = await runner.run("memory_dream_revert", {"run_id": runs[0]["id"]})
    assert "already reverted" in again["nodes"][0]["error"], again  # done once
    # the revert is itself a version: memory_restore undoes it
    await runner.run("memory_restore", {"path": NODE, "version": node["after_version"]})
    assert "Fridays, Tuesdays." in (working_dir.root / NODE).read_text()

    # reverting the whole first run removes the node it created (kept in history)
    (working_dir.root / NODE).write_text(created)  # as run 1 left it
    whole = await runner.run("memory_dream_revert", {"run_id": runs[1]["id"]})
    assert [n["error"] for n in whole["nodes"]] == [""], whole
    assert not (working_dir.root / NODE).exists()


async def test_review_mode_waits_for_approval(
    review_runner: JobRunner, fake_llm, tmp_path: Path
) -> None:
    working_dir = WorkingDir(tmp_path / ".reme")
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": node_text(card, "Fri.")})])
    fake_llm.add_text(receipt("CREATE", NODE))
    result = await review_runner.run("memory_dream", {"date": DAY.isoformat()})
    assert "waiting for your review" in result["message"], result
    assert not (working_dir.root / NODE).exists()  # nothing in the digest yet
    [run] = (await review_runner.run("memory_dream_runs", {}))["runs"]
    assert run["status"] == "pending"
    shown = await review_runner.run("memory_dream_run", {"run_id": run["id"]})
    assert "+Fri.\n" in shown["nodes"][0]["diff"]

    approved = await review_runner.run("memory_dream_approve", {"run_id": run["id"]})
    assert approved["status"] == "approved" and approved["nodes"][0]["error"] == ""
    assert "Fri." in (working_dir.root / NODE).read_text()
    with pytest.raises(EditConflict):
        await review_runner.run("memory_dream_reject", {"run_id": run["id"]})

    # a second pending run, rejected: the digest keeps what was approved
    other = add_card(working_dir, DAY, "deploy-days", "Days", "Atlas now also ships on Tuesdays.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "Tuesdays too", other)]))
    fake_llm.add_tool_calls([("read", {"path": NODE})])
    fake_llm.add_tool_calls([("edit", {"path": NODE, "old_text": "Fri.", "new_text": "Tue."})])
    fake_llm.add_text(receipt("REFINE", NODE))
    await review_runner.run("memory_dream", {"date": DAY.isoformat()})
    pending = (await review_runner.run("memory_dream_runs", {}))["runs"][0]
    before = (working_dir.root / NODE).read_text()
    assert pending["status"] == "pending", pending
    rejected = await review_runner.run("memory_dream_reject", {"run_id": pending["id"]})
    assert rejected["status"] == "rejected"
    assert (working_dir.root / NODE).read_text() == before
