"""`SearchParts`: the runtime's search index and wikilink graph, opened in the background.

It opens both (the first sync follows `progress`), keeps the index following this process's
writes and, when watching, the edits on disk; a failure leaves search off with the reason
(`failure`); `close` stops a first sync without waiting for embedding (it resumes next time).
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from remecli.config.search import SearchSettings
from remecli.notes.writer import MemoryWriter

if TYPE_CHECKING:
    from remecli.notes.links import LinkGraph
    from remecli.search import MemoryIndex
    from remecli.search.hits import SearchHit
    from remecli.search.request import SearchRequest
    from remecli.search.sync import Progress

log = logging.getLogger(__name__)


class SearchParts:
    """The search index and the link graph of one working dir (`enabled` False: none)."""

    def __init__(self, root: Path, writer: MemoryWriter, *, enabled: bool = True) -> None:
        self.root = root
        self.writer = writer
        self.enabled = enabled
        self.index: MemoryIndex | None = None
        self.links: LinkGraph | None = None  # derived wikilink graph (outlinks, backlinks)
        self.ready = asyncio.Event()  # set once the search index is open
        self.failure: Exception | None = None  # why the index did not open
        self.task: asyncio.Task[None] | None = None
        self._opening: MemoryIndex | None = None

    def open(self, settings: SearchSettings, watch: bool, progress: Progress | None) -> None:
        """Start opening the index and the graph in the background (see `wait`)."""
        self.task = asyncio.create_task(self._open(settings, watch, progress))

    async def _open(self, settings: SearchSettings, watch: bool, progress: Progress | None) -> None:
        from remecli.notes.links import LinkGraph
        from remecli.search import MemoryIndex
        from remecli.search.write_follower import (
            changes_into,
            follow_links,
            follow_writes,
            watched_paths,
        )

        try:
            index = await asyncio.to_thread(
                partial(MemoryIndex.open, embed_on_demand=True, long_lived=watch),
                self.root,
                settings,
            )
            self._opening = index  # close() can stop its first sync
            self.links = links = await asyncio.to_thread(LinkGraph.open, self.root)
            if watch and settings.watch:
                index.watched = watched_paths(index)  # notes of the graph too, whatever patterns
                index.start_watching(on_changed=changes_into(lambda: self.links))  # before the
                await asyncio.sleep(0)  # first sync: its watches are set, no change is missed
                await asyncio.to_thread(links.sync)  # (/clear): what changed while links opened
            follow_links(links, self.writer.on_written, index.watch.running)
            # this process's writes: searchable everywhere without the watcher's wait; followed
            # before the first sync, so a write while it reads the notes is not left out
            follow_writes(index, self.writer.on_written, lambda: self._opening is index)
            await index.sync(progress)
            self.index = index
            self.ready.set()
        except Exception as exc:
            self.failure = exc
            log.exception("memory index failed to open; memory_search stays off")
            if self._opening is not None:
                await self._opening.stop()  # no watcher syncs into a closed index
            for part in (self._opening, self.links):
                if part is not None:
                    try:
                        await asyncio.to_thread(part.close)
                    except Exception:
                        log.exception("could not close a part of the failed index")
            self._opening = self.links = None

    async def wait(self) -> MemoryIndex | None:
        """The open index, waiting for it if it is being opened (None when search is off)."""
        if self.index is None and self.task is not None:
            await asyncio.shield(self.task)
        return self.index

    async def search(self, request: SearchRequest, *, links: bool = True) -> list[SearchHit]:
        """The hits of one resolved request, best first, each with its note's links."""
        index = await self.wait()
        if index is None:
            return []
        graph = self.links if links else None

        def search_and_link() -> list[SearchHit]:  # one worker thread: search, links
            hits = index.search_blocking(request)
            if graph is not None:
                from remecli.notes.links import link_summary
                from remecli.search.hits import HitLinks

                found: dict[str, HitLinks] = {}
                for hit in hits:
                    if hit.path not in found:
                        found[hit.path] = HitLinks.model_validate(link_summary(graph, hit.path))
                    hit.links = found[hit.path]
            return hits

        return await asyncio.to_thread(search_and_link)

    async def close(self) -> None:
        """Stop the first sync or the watcher and close the index and the graph."""
        index = self.index or self._opening
        if index is not None:
            index.request_stop()  # exit never waits for embedding: it resumes next time
        if self.task is not None and not self.task.done():
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        if index is not None:
            await index.stop()
            await asyncio.to_thread(index.close)  # after the current embedding batch
            self.index = self._opening = None
        if self.links is not None:
            await asyncio.to_thread(self.links.close)
            self.links = None
