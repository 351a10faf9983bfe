"""The watcher picks up edits made by an editor or the summarizer."""

from __future__ import annotations

import asyncio
from pathlib import Path

from remecli.search import MemoryIndex
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
        results = await index.search(query, 5, 0.0)
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
