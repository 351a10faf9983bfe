"""The watcher picks up edits made by an editor or the summarizer."""

from __future__ import annotations

import asyncio
from pathlib import Path

from remecli.search import MemoryIndex, SearchRequest
from tests.search.helpers import settings


async def _poll(
    index: MemoryIndex, query: str, path: Path, text: str, timeout: float = 30.0
) -> list:
    """Write `text` to `path`, then search until it is found; the write is repeated every
    half second, so a watcher that was not listening yet still sees one (no fixed sleep)."""
    loop = asyncio.get_running_loop()
    deadline, rewrite_at = loop.time() + timeout, 0.0
    while loop.time() < deadline:
        if loop.time() >= rewrite_at:
            path.write_text(text, encoding="utf-8")
            rewrite_at = loop.time() + 0.5
        results = await index.search(SearchRequest(query=query, max_results=5, min_score=0.0))
        if results:
            return results
        await asyncio.sleep(0.05)
    return []


async def test_watcher_indexes_new_and_edited_files(working_dir: Path) -> None:
    index = MemoryIndex.open(working_dir, settings(watch_debounce_ms=100))
    await index.sync()
    index.start_watching()
    try:
        note = working_dir / "memory" / "2025-01-03.md"
        text = "# 2025-01-03\nThe quokka photo session was fun.\n"
        found = await _poll(index, "quokka", note, text)
        assert [(r.path, r.start_line) for r in found] == [("memory/2025-01-03.md", 1)]

        memory = working_dir / "MEMORY.md"
        grown = memory.read_text() + "\n# Pets\nA pangolin named Ping.\n"
        found = await _poll(index, "pangolin", memory, grown)
        assert found and found[0].path == "MEMORY.md"
    finally:
        await index.stop()
        index.close()


def test_a_folder_event_reports_every_file_it_held_and_holds(tmp_path: Path) -> None:
    """A folder removed, moved or moved in is one event for the folder and none for its files
    (issue 38: the index and the link graph kept the old paths until a restart)."""
    from watchfiles import Change

    from remecli.search.watcher import WantedFiles, changed_paths

    for rel in ("memory/a/x.md", "memory/a/deep/y.md", "memory/a/skip.txt", "memory/b.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    files = WantedFiles(tmp_path, lambda rel: rel.endswith(".md"))
    assert files.walk() == {"memory/a/x.md", "memory/a/deep/y.md", "memory/b.md"}

    def event(change: Change, rel: str) -> set[str]:
        return changed_paths(files, {(change, str(tmp_path / rel))})

    (tmp_path / "memory/a").rename(tmp_path / "memory/c")  # mv memory/a memory/c
    assert event(Change.deleted, "memory/a") == {"memory/a/x.md", "memory/a/deep/y.md"}
    assert event(Change.added, "memory/c") == {"memory/c/x.md", "memory/c/deep/y.md"}
    (tmp_path / "memory/c").rename(tmp_path.parent / f"{tmp_path.name}-gone")  # moved away
    assert event(Change.deleted, "memory/c") == {"memory/c/x.md", "memory/c/deep/y.md"}
    assert event(Change.deleted, "memory/c") == set()  # forgotten
    assert event(Change.deleted, "logs/old.log") == set()  # not a folder of wanted files
