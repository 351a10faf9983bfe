"""Keeps an index current while files change (watchfiles, debounced).

It knows nothing of the index: it is given the folder to watch, a test for relative paths worth
syncing, and the coroutine that syncs a set of changed relative paths.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

log = logging.getLogger(__name__)


def relative(root: Path, path: str) -> str:
    """`path` relative to `root` as posix, or "" when outside it."""
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return ""


async def watch_and_sync(
    root: Path,
    wanted: Callable[[str], bool],
    sync: Callable[[set[str]], Awaitable[object]],
    stop_event: asyncio.Event,
    debounce_ms: int,
) -> None:
    """Call `sync(changed)` after each burst of changes to wanted files until `stop_event`."""
    from watchfiles import awatch

    root.mkdir(parents=True, exist_ok=True)
    resolved = root.resolve()
    async for changes in awatch(
        root,
        watch_filter=lambda _change, path: wanted(relative(resolved, path)),
        debounce=debounce_ms,
        step=50,
        stop_event=stop_event,
        recursive=True,
    ):
        changed = {relative(resolved, path) for _change, path in changes}
        try:
            await sync(changed)
        except Exception:  # a failed sync must not end the watcher
            log.exception("memory index sync after a file change failed")
