"""memory_ingest through the job registry (the one definition CLI, MCP and HTTP serve)."""

from __future__ import annotations

import os

import pytest

from remecli.ops import JOBS, JobRunner
from remecli.ops.errors import InvalidParams, NotFound, PathRefused, ReadOnlyRefused
from tests.resources.conftest import answer, resource_cards, resource_settings


def put(root, name: str, text: str) -> None:
    path = root / "resource" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


async def test_memory_ingest_is_one_writing_job_in_the_registry(runner, tmp_path, fake_llm):
    job = JOBS.get("memory_ingest")
    assert not job.read_only and job.input_schema()["required"] == ["path"]
    root = tmp_path / ".reme"
    put(root, "notes/ops.md", "# Ops\n\nPager rotation is weekly.\n")
    put(root, "notes/db.csv", "table,rows\nusers,120\n")
    fake_llm.add_text(answer("Users table", "Row counts of the database tables."))
    fake_llm.add_text(answer("Pager rotation", "The ops pager rotates every week."))
    result = await runner.run("memory_ingest", {"path": "notes"})  # a folder under resource/
    assert [(o["resource"], o["status"]) for o in result["outcomes"]] == [
        ("resource/notes/db.csv", "created"),
        ("resource/notes/ops.md", "created"),
    ]
    again = await runner.run("memory_ingest", {"path": "resource/notes/ops.md"})
    assert again["outcomes"][0]["status"] == "unchanged" and again["gone"] == []
    assert len(resource_cards(root)) == 2

    (root / "resource" / "notes" / "ops.md").unlink()
    after = await runner.run("memory_ingest", {"path": "resource"})
    assert after["gone"] == [
        {"card": result["outcomes"][1]["card"], "resource": "resource/notes/ops.md"}
    ]
    assert len(resource_cards(root)) == 2  # listed, never removed by the job


async def test_memory_ingest_stays_inside_resource(runner, tmp_path):
    root = tmp_path / ".reme"
    with pytest.raises(InvalidParams, match=r"'\.\.'"):
        await runner.run("memory_ingest", {"path": "resource/../MEMORY.md"})
    with pytest.raises(InvalidParams, match="absolute"):
        await runner.run("memory_ingest", {"path": "/etc/passwd"})
    with pytest.raises(NotFound, match="put it into resource/"):
        await runner.run("memory_ingest", {"path": "missing.md"})
    outside = tmp_path / "secret.txt"
    outside.write_text("not for the server\n", encoding="utf-8")
    (root / "resource").mkdir(exist_ok=True)
    os.symlink(outside, root / "resource" / "link.txt")
    with pytest.raises(PathRefused, match="outside the working dir"):
        await runner.run("memory_ingest", {"path": "resource/link.txt"})
    result = await runner.run("memory_ingest", {"path": "resource"})
    # the link out is not followed when listing either, and it is named as skipped
    assert [(o["resource"], o["status"]) for o in result["outcomes"]] == [
        ("resource/link.txt", "skipped")
    ]
    assert "leads out of the working dir" in result["outcomes"][0]["message"]


async def test_memory_ingest_is_refused_read_only(tmp_path, fake_llm):
    runner = JobRunner.from_settings(resource_settings(tmp_path, fake_llm.base_url), read_only=True)
    await runner.start(wait_for_index=True)
    try:
        assert "memory_ingest" not in [job.name for job in runner.available()]
        with pytest.raises(ReadOnlyRefused):
            await runner.run("memory_ingest", {"path": "resource"})
    finally:
        await runner.close()


async def test_the_watcher_and_memory_ingest_share_one_rule_for_links(runner, tmp_path, fake_llm):
    """A link out of the working dir is refused by memory_ingest and skipped by the watcher's
    catch-up alike; a link inside it is accepted by both."""
    root = tmp_path / ".reme"
    (root / "resource").mkdir(exist_ok=True)
    outside = tmp_path / "secret.txt"
    outside.write_text("not for the server\n", encoding="utf-8")
    os.symlink(outside, root / "resource" / "out.txt")
    (root / "inside.txt").write_text("inside the working dir\n", encoding="utf-8")
    os.symlink(root / "inside.txt", root / "resource" / "in.txt")
    cards = runner.memory.resources
    assert cards.resources() == ["resource/in.txt"]
    skipped = await cards.sync({"resource/out.txt"})
    assert [(o.resource, o.status) for o in skipped] == [("resource/out.txt", "skipped")]
    with pytest.raises(PathRefused):
        await runner.run("memory_ingest", {"path": "resource/out.txt"})
    fake_llm.add_text(answer("Inside note", "A note that lives inside the working dir."))
    result = await runner.run("memory_ingest", {"path": "resource/in.txt"})
    assert [(o["resource"], o["status"]) for o in result["outcomes"]] == [
        ("resource/in.txt", "created")
    ]
