"""Keeps an index current while files change (watchfiles, debounced).

It knows nothing of the index: it is given the folder to watch, a test for relative paths worth
syncing, and the coroutine that syncs a set of changed relative paths. A folder moved, removed or
moved in (`mv cards/a cards/b`) is one event for the folder and none for its files: the watcher
keeps the wanted files by folder (`WantedFiles`) and reports every file the folder held and holds.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from remecli.config.privacy import private_dirs

log = logging.getLogger(__name__)


def relative(root: Path, path: str) -> str:
    """`path` relative to `root` as posix, or "" when outside it."""
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return ""


class WantedFiles:
    """The wanted files under `root` by folder (relative posix paths; hidden folders and
    symlinked ones left out, as the notes are listed), kept as the watcher's events come."""

    def __init__(self, root: Path, wanted: Callable[[str], bool]) -> None:
        self.root = root
        self.wanted = wanted
        self.folders: dict[str, set[str]] = {}  # folder ("" the root) -> wanted files in it

    def walk(self, folder: str = "") -> set[str]:
        """Record `folder` and every folder below it as on disk now; returns their wanted files."""
        found: set[str] = set()
        pending = [folder]
        while pending:
            current = pending.pop()
            files = self.folders.setdefault(current, set())
            try:
                entries = list(os.scandir(self.root / current))
            except OSError:
                continue
            for entry in entries:
                rel = f"{current}/{entry.name}" if current else entry.name
                try:
                    if entry.name.startswith("."):
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(rel)
                    elif self.wanted(rel):
                        files.add(rel)
                        found.add(rel)
                except OSError:  # gone meanwhile
                    continue
        return found

    def may_be_folder(self, change: object, path: str, rel: str) -> bool:
        """True for a folder added (on disk now) and for any path deleted (what it held is
        told from what was recorded: `folder_changed`)."""
        from watchfiles import Change

        if not rel or rel.rsplit("/", 1)[-1].startswith("."):
            return False
        if change == Change.added:
            return os.path.isdir(path) and not os.path.islink(path)
        return change == Change.deleted

    def folder_changed(self, rel: str) -> set[str]:
        """Every wanted file `rel` held (forgotten) and holds now (recorded)."""
        under = [f for f in self.folders if f == rel or f.startswith(rel + "/")]
        held = set().union(*(self.folders.pop(f) for f in under))
        if os.path.isdir(self.root / rel):
            held |= self.walk(rel)
        return held

    def file_changed(self, change: object, rel: str) -> None:
        """Keep a wanted file's folder up to date."""
        from watchfiles import Change

        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        if change == Change.deleted:
            self.folders.get(folder, set()).discard(rel)
        else:
            self.folders.setdefault(folder, set()).add(rel)


def changed_paths(files: WantedFiles, changes: Iterable[tuple[object, str]]) -> set[str]:
    """The wanted files a burst of changes touched, a folder's files for a folder event."""
    changed: set[str] = set()
    for change, path in changes:
        rel = relative(files.root, path)
        if files.wanted(rel):
            files.file_changed(change, rel)
            changed.add(rel)
        elif files.may_be_folder(change, path, rel):
            changed |= files.folder_changed(rel)
    return changed


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
    files = WantedFiles(resolved, wanted)
    # listed in a thread once the watches are set (this task's first step): no change is missed
    walked = asyncio.ensure_future(asyncio.to_thread(files.walk))

    def keep(change: object, path: str) -> bool:
        rel = relative(resolved, path)
        return wanted(rel) or files.may_be_folder(change, path, rel)

    async for changes in awatch(
        root,
        watch_filter=keep,
        debounce=debounce_ms,
        step=50,
        stop_event=stop_event,
        recursive=True,
    ):
        await walked  # what a folder held is known before its events are read
        changed = changed_paths(files, changes)
        if not changed:
            continue
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
