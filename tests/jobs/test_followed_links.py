"""A runtime that watches the working dir keeps its link graph current from the watcher and its
own writes, so memory_links and memory_graph answer without scanning every note (a Studio note
page re-scanned 10,000 files), and still see an edit made on disk or through a job."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from pathlib import Path

import pytest

from remecli.notes.links.scan import NoteScan
from remecli.ops import JobRunner
from tests.jobs.conftest import job_settings, seed
from tests.links.conftest import FILES, write_files

ROLLBACK = "digest/procedure/rollback.md"


@pytest.fixture(params=[None, ["MEMORY.md", "memory/**/*.md"]], ids=["default", "no-digest"])
async def watching(tmp_path: Path, fake_llm, request) -> AsyncIterator[JobRunner]:
    """A watching runtime; also one whose search patterns leave the digest out (the watcher
    must still report the digest's changes to the link graph)."""
    root = tmp_path / ".reme"
    seed(root)
    write_files(root, {**FILES, "digest/wiki/old.md": "---\nstatus: contradicted\n---\n"})
    changes = {"search.watch": True, "search.watch_debounce_ms": 50}
    if request.param is not None:
        changes["search.patterns"] = request.param
    settings = job_settings(tmp_path, fake_llm.base_url).with_changes(changes)
    runner = JobRunner.from_settings(settings)
    await runner.start(wait_for_index=True, background=False, watch=True)
    try:
        yield runner
    finally:
        await runner.close()


async def _eventually(check: Callable[[], Awaitable[bool]]) -> None:
    """Wait for the watcher (generous: a loaded machine), then require `check()`."""
    deadline = time.monotonic() + 30
    while not await check() and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert await check()


async def _linking(runner: JobRunner) -> set[str]:
    found = await runner.run("memory_links", {"path": ROLLBACK, "direction": "in"})
    return {n["path"] for n in found["in"]}


async def _status(runner: JobRunner, path: str) -> str:
    graph = await runner.run("memory_graph", {})
    return {n["path"]: n["status"] for n in graph["nodes"]}[path]


async def test_a_watched_graph_answers_without_scanning_and_follows_edits(
    watching: JobRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = watching.context.root
    scans: list[str] = []
    real_list = NoteScan.list

    def counted_list(self: NoteScan, folders: Iterable[str]) -> tuple[dict, set[str]]:
        folders = list(folders)
        scans.extend(folders)
        return real_list(self, folders)

    monkeypatch.setattr(NoteScan, "list", counted_list)
    assert "digest/procedure/release-checklist.md" in await _linking(watching)
    assert await _status(watching, "digest/wiki/old.md") == "contradicted"
    # edited on disk by something else: the watcher brings it
    (root / "memory/2025-02-01.md").write_text("# 2025-02-01\n\nSee [[Rollback]].\n")
    (root / "digest/wiki/old.md").write_text("---\nstatus: active\n---\nFixed.\n")
    await _eventually(lambda: _has(watching, "memory/2025-02-01.md"))
    await _eventually(lambda: _is_active(watching))
    # written through a job: in the graph when the write returns, no watcher wait
    await watching.run(
        "memory_write", {"path": "memory/2025-02-02.md", "content": "[[Rollback]]\n"}
    )
    assert "memory/2025-02-02.md" in await _linking(watching)
    assert scans == []  # every answer came from the followed graph (each call scanned before)
    await watching.memory.index.stop()  # the watcher is gone: queries list changed folders
    (root / "memory/2025-02-03.md").write_text("[[Rollback]]\n")
    assert "memory/2025-02-03.md" in await _linking(watching)
    assert "memory" in scans


async def _has(runner: JobRunner, path: str) -> bool:
    return path in await _linking(runner)


async def _is_active(runner: JobRunner) -> bool:
    return await _status(runner, "digest/wiki/old.md") == "active"


async def test_a_notes_own_links_are_current_before_the_watcher_reports_it(
    tmp_path: Path, fake_llm
) -> None:
    """Studio redraws a note as soon as its file changes (memory_stamp); its links must be the
    file's, not the graph's from before the watcher's burst (a minute away here)."""
    root = tmp_path / ".reme"
    seed(root)
    write_files(root, FILES)
    settings = job_settings(tmp_path, fake_llm.base_url).with_changes(
        {"search.watch": True, "search.watch_debounce_ms": 60_000}
    )
    runner = JobRunner.from_settings(settings)
    await runner.start(wait_for_index=True, background=False, watch=True)
    try:
        card = "memory/2025-01-31/deploy.md"
        (root / card).write_text("---\nname: Deploy steps\n---\nNow only [[MEMORY.md]].\n")
        found = await runner.run("memory_links", {"path": card, "direction": "out"})
        assert [n["path"] for n in found["out"]] == ["MEMORY.md"]
    finally:
        await runner.close()


async def _search_paths(runner: JobRunner, query: str) -> set[str]:
    found = await runner.run("memory_search", {"query": query, "min_score": 0})
    return {hit["path"] for hit in found["results"]}


async def test_a_folder_moved_on_disk_is_followed_by_the_graph_and_the_index(
    watching: JobRunner,
) -> None:
    """`mv memory/2025-01-31 memory/2025-02-09` is one event for the folder and none for its
    files: the graph and the index kept the old paths until a restart (issue 38)."""
    root = watching.context.root
    old, new = "memory/2025-01-31/deploy.md", "memory/2025-02-09/deploy.md"
    assert old in await _linking(watching)
    assert old in await _search_paths(watching, "make ship Fridays")
    (root / "memory/2025-01-31").rename(root / "memory/2025-02-09")

    async def followed() -> bool:
        linking = await _linking(watching)
        hits = await _search_paths(watching, "make ship Fridays")
        return new in linking and old not in linking and new in hits and old not in hits

    await _eventually(followed)
    (root / "memory/2025-02-09").rename(root / "memory/moved-back")  # and again, from there
    await _eventually(lambda: _has(watching, "memory/moved-back/deploy.md"))
    assert new not in await _linking(watching)
