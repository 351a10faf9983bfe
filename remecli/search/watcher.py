"""Keeps an index current while files change (watchfiles, debounced).

It knows nothing of the index: it is given the folder to watch, a test for relative paths worth
syncing, and the coroutine that syncs a set of changed relative paths.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from remecli.config.privacy import private_dirs

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

    private_dirs(root)
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


class Watch:
    """One `watch_and_sync` task at a time: started on the running loop, stopped on request."""

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        self._stop_event: asyncio.Event | None = None

    def start(
        self,
        root: Path,
        wanted: Callable[[str], bool],
        sync: Callable[[set[str]], Awaitable[object]],
        debounce_ms: int,
    ) -> None:
        """Start watching (needs a running event loop); no-op while a watch runs."""
        if self._task is not None and not self._task.done():
            return
        self._stop_event = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(
            watch_and_sync(root, wanted, sync, self._stop_event, debounce_ms)
        )

    def running(self) -> bool:
        """True while the watch task runs (not stopped, not ended by an error)."""
        stopping = self._stop_event is not None and self._stop_event.is_set()
        return self._task is not None and not self._task.done() and not stopping

    async def stop(self) -> None:
        """Stop watching (waits up to 10 s for a sync in progress to finish)."""
        if self._stop_event is not None:
            self._stop_event.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, timeout=10)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()
            self._task = None
