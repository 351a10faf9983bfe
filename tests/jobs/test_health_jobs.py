"""memory_health (index coverage) and memory_stamp (a marker that moves when memory does)."""

from __future__ import annotations

from remecli.ops import JobRunner


async def test_health_counts_and_lists_a_file_changed_behind_the_index(runner: JobRunner) -> None:
    root = runner.context.root
    health = await runner.run("memory_health", {})
    assert health["index_state"] == "ready" and health["files_indexed"] == 3
    assert health["stale"] == [] and health["embedded_share"] is None  # keyword-only
    (root / "memory" / "2024-06-01.md").write_text("# changed behind the index's back\n")
    (root / "memory" / "2025-02-01.md").write_text("# new\n")
    health = await runner.run("memory_health", {})
    assert health["stale"] == ["memory/2024-06-01.md"]
    assert health["missing"] == ["memory/2025-02-01.md"]
    await runner.run("memory_reindex", {})
    health = await runner.run("memory_health", {})
    assert health["stale"] == health["missing"] == [] and health["last_reindex"]


async def test_stamp_moves_when_a_file_is_added_or_the_watched_file_changes(
    runner: JobRunner,
) -> None:
    root = runner.context.root
    day = "memory/2025-01-31.md"

    async def stamp() -> str:
        return str((await runner.run("memory_stamp", {"paths": [day]}))["stamp"])

    first = await stamp()
    assert await stamp() == first
    (root / day).write_text((root / day).read_text() + "one more line\n")  # in place
    second = await stamp()
    assert second != first
    (root / "memory" / "2025-01-31").mkdir()
    (root / "memory" / "2025-01-31" / "card.md").write_text("# card\n")
    assert await stamp() != second
