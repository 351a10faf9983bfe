"""`FileMemory`: the memory runtime — the one owner of a conversation's memory.

It owns the layout, the conversation (session, tool-result store, compactor, transcript,
persistence), the background summaries, the search index, `update_params`, and what is handed to
long-term memory when (saved mark, crash recovery, hand-over on compaction and every way out).

The seed's methods: start, close, compact_memory, summary_memory, compact_tool_result,
add_async_summary_task, await_summary_tasks, memory_search, get_in_memory_memory, update_params.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from remecli.config.settings import Settings
from remecli.conversation.conversation import Conversation
from remecli.conversation.notices import MemoryNotice
from remecli.conversation.recovery import SAVED_MARK, unsaved_of_crashed_run
from remecli.conversation.rescue import fold_in, put_aside
from remecli.conversation.session import Session
from remecli.conversation.tool_results import offload_messages
from remecli.conversation.vector_memory import VectorMemory
from remecli.knowledge.background import SummaryTasks
from remecli.knowledge.dreaming import Dreaming
from remecli.knowledge.pending_records import SummaryOutcome
from remecli.knowledge.remember_requests import one_shot_worth_a_card
from remecli.knowledge.resources import ResourceCards
from remecli.knowledge.summarizer import Summarizer, SummaryResult
from remecli.notes.atomic_write import remove_stale_temp_files
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter

if TYPE_CHECKING:
    from remecli.knowledge.dream.runner import DreamResult
    from remecli.knowledge.resources_watch import ResourceWatcher
    from remecli.notes.links import LinkGraph
    from remecli.search import MemoryIndex
    from remecli.search.hits import SearchHit
    from remecli.search.request import SearchRequest
    from remecli.search.sync import Progress

log = logging.getLogger(__name__)


class FileMemory:
    """File-based long-term memory for one working dir, and the memory of its conversation."""

    def __init__(
        self,
        working_dir: str | Path = ".reme",
        *,
        settings: Settings | None = None,
        model: Any = None,
        max_input_length: int | None = None,
        memory_compact_ratio: float | None = None,
        language: str | None = None,
        tool_result_threshold: int | None = None,
        retention_days: int | None = None,
        search: bool = True,
        workspace: Path | None = None,
        on_summary_change: Callable[[int], Any] | None = None,
        on_summary_done: Callable[[SummaryOutcome], Any] | None = None,
        on_notice: Callable[[MemoryNotice], Any] | None = None,
        on_dream_done: Callable[[DreamResult], Any] | None = None,
    ) -> None:
        if settings is None:
            from remecli.config import load_settings

            settings = load_settings([])  # defaults < environment (REME_LLM_*, .env)
        changes = {
            "working_dir": str(Path(working_dir).expanduser().resolve()),
            "max_input_length": max_input_length,
            "memory_compact_ratio": memory_compact_ratio,
            "language": language,
            "memory.tool_result_threshold": tool_result_threshold,
            "memory.retention_days": retention_days,
        }
        self.settings = settings.with_changes({k: v for k, v in changes.items() if v is not None})
        self.layout = WorkingDir(Path(self.settings.working_dir), workspace)
        from remecli.llm.tokens import get_token_counter

        self.counter = get_token_counter(self.settings.memory.token_encoding)
        # the one memory writer (versions, redaction, locks), given to every part that writes
        self.writer = MemoryWriter.from_settings(self.layout.root, self.settings.memory)
        self.summarizer = Summarizer(self.settings, self.layout, model=model, writer=self.writer)
        self.conversation = Conversation(
            self.settings, self.layout, self.counter, lambda: self.model, display_root=workspace
        )
        self.conversation.on_compacted = self.hand_over
        self.conversation.on_notice = on_notice
        self._on_tasks_change = on_summary_change
        self._on_summary_done = on_summary_done
        self.tasks = SummaryTasks(
            self.summarizer, self.layout.pending_dir, on_done=self._summary_done
        )
        self.tasks.on_change = lambda _running: self._tasks_changed()
        self.tasks.live = on_summary_done is not None  # a front-end shows outcomes as they come
        self.conversation.on_space_back = self.tasks.start_waiting  # summaries too
        self.dreaming = Dreaming(
            self.settings,
            self.layout,
            lambda: self.model,
            on_change=lambda _running: self._tasks_changed(),
            on_done=on_dream_done,
            writer=self.writer,
            gate=self.tasks.gate,  # one gate: no model job without a model, said once
        )
        self.vector = VectorMemory(self.settings, self.layout)  # memory.vector.enabled
        # resource/ files become cards; front-ends set `resources.on_gone` to ask before pruning
        self.resources = ResourceCards(
            self.layout, self.settings, lambda: self.model, self.writer, gate=self.tasks.gate
        )
        self._resource_watcher: ResourceWatcher | None = None
        self.search_enabled = search
        self.index: MemoryIndex | None = None
        self.links: LinkGraph | None = None  # derived wikilink graph (outlinks, backlinks)
        self.index_ready = asyncio.Event()  # set once the search index is open
        self.index_failure: Exception | None = None  # why the index did not open
        self._index_task: asyncio.Task[None] | None = None
        self._opening: MemoryIndex | None = None

    @property
    def tool_results(self) -> Any:
        """The one tool-result store (oversized outputs under `tool_result/`)."""
        return self.conversation.store

    @property
    def model(self) -> Any:
        """The chat model for checkpoints and summaries (the summarizer's, built on first use)."""
        return self.summarizer.model

    async def start(
        self,
        *,
        wait_for_index: bool = True,
        recover: bool = False,
        background: bool = True,
        watch: bool | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Create the layout, clean expired tool results and stale temp files, recover a crashed
        run's turns (`recover`), open the search index (`progress` follows its first sync); with
        `background` (a server) retry pending summaries, Auto Dream, watch for edits (`watch`
        None: with `background`; a read-only server watches without the rest). A one-shot
        answer (`-p`) leaves earlier runs' pending and crashed work to the next session."""
        await asyncio.to_thread(self.layout.ensure)
        await asyncio.to_thread(self.tool_results.cleanup)
        await asyncio.to_thread(remove_stale_temp_files, self.layout.root)
        await fold_in(self.conversation)  # what an earlier run put aside for a full disk
        one_shot = self.settings.prompt is not None  # -p: never waits for earlier work
        if recover and not one_shot:
            await self.recover_unsaved()
        if background and not one_shot:  # a recovered task is running: the retry leaves it
            if self.settings.memory.summarize:  # off: records wait for a start with it on
                await self.tasks.retry_pending()
            await self.dreaming.maybe_start()
        if self.search_enabled:
            self._index_task = asyncio.create_task(
                self._open_index(background if watch is None else watch, progress)
            )
            if wait_for_index:
                await self._index_task
        if background and self.search_enabled and self.settings.search.watch:
            from remecli.knowledge.resources_watch import ResourceWatcher

            self._resource_watcher = ResourceWatcher(
                self.resources, self.settings.search.watch_debounce_ms
            )
            self._resource_watcher.start()

    async def _open_index(self, watch: bool, progress: Progress | None) -> None:
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
                self.layout.root,
                self.settings.search,
            )
            self._opening = index  # close() can stop its first sync
            self.links = links = await asyncio.to_thread(LinkGraph.open, self.layout.root)
            if watch and self.settings.search.watch:
                index.watched = watched_paths(index)  # notes of the graph too, whatever patterns
                index.start_watching(on_changed=changes_into(lambda: self.links))  # before the
                await asyncio.sleep(0)  # first sync: its watches are set, no change is missed
                await asyncio.to_thread(links.sync)  # (/clear): what changed while links opened
            follow_links(links, self.writer.on_written, index.watch.running)
            await index.sync(progress)
            self.index = index
            self.index_ready.set()
            # this process's writes: searchable everywhere without the watcher's wait
            follow_writes(index, self.writer.on_written, lambda: self.index is index)
        except Exception as exc:
            self.index_failure = exc
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

    async def close(self, *, wait: bool = True, timeout: float | None = None) -> list[str]:
        """Save the conversation, finish (or, with wait=False, cancel and record) background
        summaries, stop the watcher, clean expired tool results; one status line per summary."""
        if self.conversation.bound:
            try:
                await self.conversation.save()
            except Exception:  # e.g. a full disk: everything below must still stop
                log.exception("could not save the conversation on close")
        await self.dreaming.stop()  # a background dream is redone next time; never waited for
        lines = await (self.tasks.await_all(timeout) if wait else self.tasks.cancel_all())
        await self.dreaming.stop()  # one the last summaries may have started
        await self.vector.close()
        if self._resource_watcher is not None:
            await self._resource_watcher.stop()
            self._resource_watcher = None
        index = self.index or self._opening
        if index is not None:
            index.request_stop()  # exit never waits for embedding: it resumes next time
        if self._index_task is not None and not self._index_task.done():
            self._index_task.cancel()
            await asyncio.gather(self._index_task, return_exceptions=True)
        if index is not None:
            await index.stop()
            await asyncio.to_thread(index.close)  # after the current embedding batch
            self.index = self._opening = None
        if self.links is not None:
            await asyncio.to_thread(self.links.close)
            self.links = None
        await asyncio.to_thread(self.tool_results.cleanup)
        await asyncio.to_thread(self.layout.make_private)  # what the index made since the start
        self.conversation.lock.release()
        return lines + await asyncio.to_thread(put_aside, self.conversation, self.tasks.waits)

    def _tasks_changed(self) -> None:
        """Tell the front-end how many memory tasks run (summaries and a dream)."""
        if self._on_tasks_change is not None:
            self._on_tasks_change(self.tasks.pending_count + int(self.dreaming.running))

    async def _summary_done(self, outcome: SummaryOutcome) -> None:
        if self._on_summary_done is not None:
            result = self._on_summary_done(outcome)
            if asyncio.iscoroutine(result):
                await result
        if outcome.status == "written":
            await self.dreaming.maybe_start()  # new cards may make a dream due

    async def dream(self, date: dt.date | None = None) -> DreamResult:
        """Consolidate new and changed cards into the digest now (`/dream`)."""
        return await self.dreaming.run(date)

    def hand_over(self, messages: list[Any]) -> int:
        """Summarize the messages leaving the context not handed over yet; how many were."""
        fresh = [m for m in messages if not m.metadata.get(SAVED_MARK)]
        self._summarize(fresh, self.conversation.session_id if self.conversation.bound else None)
        return len(fresh)

    def hand_over_unsaved(self) -> int:
        """Hand the context's unsaved messages to the summarizer (marked: never twice); how many."""
        if not self.conversation.bound:
            return 0
        unsaved = [m for m in self.conversation.state.context if not m.metadata.get(SAVED_MARK)]
        for msg in unsaved:
            msg.metadata[SAVED_MARK] = True
        if self.conversation.session.one_shot and not one_shot_worth_a_card(unsaved):
            return 0  # a plain -p question: its transcript is kept, no card, no model call
        self._summarize([m.model_copy(deep=True) for m in unsaved], self.conversation.session_id)
        return len(unsaved)

    def _summarize(self, messages: list[Any], session_id: str | None) -> None:
        """Hand messages to the background summarizer (recorded on disk before it runs): into
        the topic card of `session_id`'s conversation."""
        if messages and self.settings.memory.summarize:
            self.tasks.add(list(messages), session_id=session_id)
            self.vector.remember(list(messages))

    async def recover_unsaved(self) -> int:
        """Summarize what a crashed run never saved (see `recovery`); returns how many."""
        wanted = self.settings.memory.summarize
        found = await unsaved_of_crashed_run(self.layout) if wanted else None  # (session, msgs)
        if found is not None:
            self._summarize(found[1], found[0])
        return 0 if found is None else len(found[1])

    async def compact_memory(
        self, messages: list[Any], previous_summary: str = "", focus: str = ""
    ) -> str:
        """A structured checkpoint of `messages`, merged into `previous_summary`."""
        compactor = self.conversation.get_compactor()
        result = await compactor.compact(messages, previous_summary, focus)
        return result.summary

    async def summary_memory(self, messages: list[Any]) -> SummaryResult:
        """Merge what is worth keeping from `messages` into today's `memory/YYYY-MM-DD.md` now."""
        return await self.summarizer.summarize(messages)

    async def compact_tool_result(self, messages: list[Any]) -> list[Any]:
        """Offload oversized tool outputs in `messages` (in place) to `tool_result/`; returns them."""
        await asyncio.to_thread(offload_messages, self.tool_results, messages)
        return messages

    def add_async_summary_task(self, messages: list[Any]) -> str:
        """Summarize `messages` in the background (never blocks); returns the task id."""
        return self.tasks.add(list(messages))

    async def await_summary_tasks(self, timeout: float | None = None) -> list[str]:
        """Wait for background summaries; one status line per task."""
        return await self.tasks.await_all(timeout)

    async def memory_search(
        self,
        query: str,
        max_results: int | None = None,
        min_score: float | None = None,
        *,
        source: str | None = None,
        since: str | None = None,
        until: str | None = None,
        links: bool = True,
    ) -> list[dict[str, Any]]:
        """The seed's search (its arguments, JSON-ready hits): `search_memory` of the request
        (an empty query finds nothing, as it always did)."""
        from remecli.search.request import SearchRequest

        if not query.strip():
            return []
        asked = {"max_results": max_results, "min_score": min_score, "source": source}
        request = SearchRequest.model_validate(
            {"query": query, "since": since, "until": until, **asked}
        )
        return [hit.to_dict() for hit in await self.search_memory(request, links=links)]

    async def search_memory(self, request: SearchRequest, *, links: bool = True) -> list[SearchHit]:
        """The hits of `request` (`SearchRequest.resolved`), each with its note's links."""
        index = await self.wait_for_index()
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

    async def retrieve_vector_memory(self, query: str, top_k: int = 5) -> list[dict[str, Any]]:
        """Personal, task and tool memories relevant to `query` (`memory.vector.enabled`)."""
        return await self.vector.retrieve(query, top_k)

    async def wait_for_index(self) -> MemoryIndex | None:
        """The open index, waiting for it if it is being opened (None when search is off)."""
        if self.index is None and self._index_task is not None:
            await asyncio.shield(self._index_task)
        return self.index

    def get_in_memory_memory(self) -> Session:
        """The token-aware session of the conversation."""
        return self.conversation.session

    def update_params(
        self,
        max_input_length: int | None = None,
        memory_compact_ratio: float | None = None,
        language: str | None = None,
    ) -> None:
        """Change the window, the compaction ratio or the language at runtime (one place: the
        settings, the session, the compactor and the summarizer follow)."""
        self.settings = self.settings.with_runtime_params(
            max_input_length, memory_compact_ratio, language
        )
        for part in (self.conversation, self.dreaming, self.vector, self.resources):
            part.settings = self.settings  # settings are frozen: each part gets the new copy
        self.conversation.update_params(max_input_length, memory_compact_ratio, language)
        self.summarizer.update_params(max_input_length=max_input_length, language=language)
