"""memory_rename, memory_delete, memory_dangling and memory_reindex's link graph on a real
runtime: every surface (CLI, MCP, HTTP) gets the same operations and errors."""

from __future__ import annotations

import pytest

from remecli.ops import JobRunner
from remecli.ops.errors import JobError, NoteExists, NotFound, PathRefused, ReadOnlyRefused
from tests.links.conftest import FILES, write_files


async def test_rename_retargets_links_and_keeps_versions(runner: JobRunner) -> None:
    root = runner.context.root
    write_files(root, FILES)
    moved = await runner.run(
        "memory_rename",
        {"path": "digest/procedure/rollback.md", "new_path": "digest/procedure/undo.md"},
    )
    assert moved == {
        "path": "digest/procedure/rollback.md",
        "new_path": "digest/procedure/undo.md",
        "rewritten": ["digest/procedure/release-checklist.md", "memory/2025-01-31/deploy.md"],
    }
    assert "[[undo]]" in (root / "memory/2025-01-31/deploy.md").read_text()
    assert not (root / "digest/procedure/rollback.md").exists()
    history = await runner.run("memory_history", {"path": "digest/procedure/rollback.md"})
    assert history["versions"][-1]["deleted"]  # the old name can be restored
    links = await runner.run("memory_links", {"path": "digest/procedure/undo.md"})
    assert {item["path"] for item in links["in"]} >= {"memory/2025-01-31/deploy.md"}


async def test_rename_and_delete_errors_say_what_to_do(runner: JobRunner) -> None:
    write_files(runner.context.root, FILES)
    with pytest.raises(NoteExists, match="exists already") as taken:
        await runner.run("memory_rename", {"path": "Rollback", "new_path": "MEMORY.md"})
    assert taken.value.status == 409 and taken.value.code == "note_exists"
    with pytest.raises(NotFound, match="memory_list"):
        await runner.run("memory_delete", {"path": "memory/nope.md"})
    with pytest.raises(PathRefused):
        await runner.run("memory_delete", {"path": "sessions/abc.jsonl"})
    with pytest.raises(JobError, match="absolute path"):
        await runner.run("memory_rename", {"path": "MEMORY.md", "new_path": "/tmp/x.md"})
    frozen = JobRunner(runner.memory, read_only=True)
    with pytest.raises(ReadOnlyRefused):
        await frozen.run("memory_delete", {"path": "MEMORY.md"})
    assert (runner.context.root / "MEMORY.md").is_file()


async def test_delete_lists_what_still_links_there_and_dangling_finds_it(
    runner: JobRunner,
) -> None:
    root = runner.context.root
    write_files(root, FILES)
    deleted = await runner.run("memory_delete", {"path": "Rollback"})
    assert deleted["path"] == "digest/procedure/rollback.md"
    assert {(d["source"], d["link"]) for d in deleted["linking"]} == {
        ("digest/procedure/release-checklist.md", "[[Rollback]]"),
        ("memory/2025-01-31/deploy.md", "[[Rollback]]"),
    }
    dangling = await runner.run("memory_dangling", {})
    targets = {(d["source"], d["target"]) for d in dangling["links"]}
    assert ("memory/2025-01-31/deploy.md", "Rollback") in targets
    assert ("MEMORY.md", "personal/editor") in targets


async def test_reindex_rebuilds_the_link_graph_too(runner: JobRunner) -> None:
    write_files(runner.context.root, FILES)
    report = await runner.run("memory_reindex", {})
    assert report["notes"] == len(FILES) - 1 + 1  # FILES but the transcript, the seeded 2024 note
    assert report["files_changed"] >= 5 and report["chunks_removed"] == 0


async def test_links_walk_as_deep_as_the_cli_asks(runner: JobRunner) -> None:
    write_files(runner.context.root, FILES)
    deep = await runner.run("memory_links", {"path": "MEMORY.md", "depth": 5, "direction": "out"})
    assert max(item["depth"] for item in deep["out"]) == 2  # the graph ends there
    with pytest.raises(JobError, match="depth"):
        await runner.run("memory_links", {"path": "MEMORY.md", "depth": 11})
