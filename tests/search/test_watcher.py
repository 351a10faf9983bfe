"""The watcher picks up edits made by an editor or the summarizer."""

from __future__ import annotations

import asyncio
from pathlib import Path

from remecli.search import MemoryIndex
from tests.search.helpers import settings


async def _poll(index: MemoryIndex, query: str, timeout: float = 30.0) -> list:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        results = await index.search(query, 5, 0.0)
        if results:
            return results
        await asyncio.sleep(0.1)
    return []


async def test_watcher_indexes_new_and_edited_files(working_dir: Path) -> None:
    index = MemoryIndex.open(working_dir, settings(watch_debounce_ms=100))
    await index.sync()
    index.start_watching()
    try:
        await asyncio.sleep(0.3)  # let the watcher start before the first write
        note = working_dir / "memory" / "2025-01-03.md"
        note.write_text("# 2025-01-03\nThe quokka photo session was fun.\n", encoding="utf-8")
        found = await _poll(index, "quokka")
        assert [(r.path, r.start_line) for r in found] == [("memory/2025-01-03.md", 1)]

        memory = working_dir / "MEMORY.md"
        memory.write_text(memory.read_text() + "\n# Pets\nA pangolin named Ping.\n", "utf-8")
        found = await _poll(index, "pangolin")
        assert found and found[0].path == "MEMORY.md"
    finally:
        await index.stop()
        index.close()
