"""Index each file the memory writer of this process writes, at once, without the watcher's wait
(a write through any surface is then searchable from every process, through the change marker);
the link graph follows those writes too."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from remecli.notes.file_service.sniff import is_note_path
from remecli.notes.links import LinkGraph
from remecli.search.index import MemoryIndex

log = logging.getLogger(__name__)


def follow_writes(
    index: MemoryIndex,
    on_written: list[Callable[[str], None]],
    is_open: Callable[[], bool],
) -> None:
    """Register on the writer's `on_written` hooks a sync of each written file into `index`,
    run on the current event loop while `is_open()` (the hook is called in the writer's thread)."""
    loop, syncing = asyncio.get_running_loop(), set[asyncio.Task[None]]()

    async def index_written(rel: str) -> None:
        if not is_open():  # closed meanwhile
            return
        try:  # a sync that took the lock since may have read it already: then nothing to do
            await index.sync(paths=())
        except Exception:
            log.exception("indexing %s after writing it failed", rel)

    def written(rel: str) -> None:
        index.note_written(rel)

        def start() -> None:
            syncing.add(task := loop.create_task(index_written(rel)))
            task.add_done_callback(syncing.discard)

        loop.call_soon_threadsafe(start)

    on_written.append(written)


def follow_links(
    links: LinkGraph, on_written: list[Callable[[str], None]], watching: Callable[[], bool]
) -> None:
    """Bring `links` up to date with each file the memory writer of this process writes (in the
    writer's thread, before the write returns); while `watching()` (the watcher brings the other
    changes, `changes_into`) its queries trust it instead of scanning every note."""

    def written(rel: str) -> None:
        if not links.closed:
            links.update_file(rel)

    on_written.append(written)
    links.followed_while(lambda: not links.closed and watching())


def watched_paths(index: MemoryIndex) -> Callable[[str], bool]:
    """What the watcher reports: the files the index reads and every note of the link graph
    (`search.patterns` may leave some out: a followed graph must still hear of them)."""
    return lambda rel: index.is_indexed_path(rel) or is_note_path(rel)


def changes_into(links: Callable[[], LinkGraph | None]) -> Callable[[set[str]], Awaitable[None]]:
    """The watcher's `on_changed`: the link graph (once open) follows files changed on disk."""

    async def follow(paths: set[str]) -> None:
        graph = links()
        if graph is not None and not graph.closed:
            await asyncio.to_thread(_update, graph, sorted(paths))

    return follow


def _update(graph: LinkGraph, paths: list[str]) -> None:
    for path in paths:
        graph.update_file(path)
