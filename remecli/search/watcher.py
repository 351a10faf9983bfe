"""Keeps a `MemoryIndex` current while files change (watchfiles, debounced)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from remecli.search.index import MemoryIndex

log = logging.getLogger(__name__)


def _is_memory_change(index: MemoryIndex, path: str) -> bool:
    """A Markdown file outside the index folder (sync applies the exact patterns)."""
    candidate = Path(path)
    if candidate.suffix.lower() != ".md":
        return False
    try:
        rel = candidate.resolve().relative_to(index.working_dir.resolve())
    except ValueError:
        return False
    return bool(rel.parts) and rel.parts[0] != index.folder.name


async def watch_and_sync(index: MemoryIndex, stop_event: asyncio.Event, debounce_ms: int) -> None:
    """Sync the index after each burst of Markdown changes until `stop_event` is set."""
    from watchfiles import awatch

    index.working_dir.mkdir(parents=True, exist_ok=True)
    async for _changes in awatch(
        index.working_dir,
        watch_filter=lambda _change, path: _is_memory_change(index, path),
        debounce=debounce_ms,
        step=50,
        stop_event=stop_event,
        recursive=True,
    ):
        try:
            await index.sync()
        except Exception:  # a failed sync must not end the watcher
            log.exception("memory index sync after a file change failed")
