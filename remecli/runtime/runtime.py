"""`Runtime`: the memory runtime's parts, built by `build_runtime`, and their start and stop.

A typed bag: the layout, the one writer and token counter, the conversation, the summarizer and
its background tasks, dreaming, vector memory, resource cards, the search index and link graph,
the hand-over to long-term memory and the event bus. It satisfies `ops.host.MemoryHost`, so a
`JobRunner` runs on it directly; the seed's API is `FileMemory`, a facade over it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from remecli.config.settings import Settings
from remecli.conversation.conversation import Conversation
from remecli.conversation.rescue import fold_in, put_aside
from remecli.conversation.vector_memory import VectorMemory
from remecli.knowledge.background.tasks import SummaryTasks
from remecli.knowledge.dreaming import Dreaming
from remecli.knowledge.resources.cards import ResourceCards
from remecli.knowledge.summary.summarizer import Summarizer
from remecli.notes.atomic_write import remove_stale_temp_files
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter
from remecli.runtime.events import EventBus
from remecli.runtime.handover import Handover
from remecli.runtime.modes import Mode, StartPlan
from remecli.runtime.search_parts import SearchParts

if TYPE_CHECKING:
    from remecli.conversation.tool_results import ToolResultStore
    from remecli.knowledge.dream.runner import DreamResult
    from remecli.knowledge.resources.watch import ResourceWatcher
    from remecli.llm.chat_model import ChatModel
    from remecli.llm.tokens import TokenCounter
    from remecli.notes.links import LinkGraph
    from remecli.search import MemoryIndex
    from remecli.search.hits import SearchHit
    from remecli.search.request import SearchRequest
    from remecli.search.sync import Progress

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Runtime:
    """The parts of one working dir's memory runtime (see `build_runtime`)."""

    settings: Settings
    mode: Mode
    layout: WorkingDir
    counter: TokenCounter
    writer: MemoryWriter  # the one memory writer (versions, redaction, locks)
    summarizer: Summarizer
    conversation: Conversation
    tasks: SummaryTasks
    dreaming: Dreaming
    vector: VectorMemory  # memory.vector.enabled
    resources: ResourceCards  # front-ends set `resources.on_gone` to ask before pruning
    search: SearchParts
    handover: Handover
    events: EventBus
    resource_watcher: ResourceWatcher | None = field(default=None)

    # ------------------------------------------------------------------ views (MemoryHost)
    @property
    def search_enabled(self) -> bool:
        """False when the runtime was made without a search index."""
        return self.search.enabled

    @property
    def index(self) -> MemoryIndex | None:
        """The open search index (None: off, still opening, or failed)."""
        return self.search.index

    @property
    def links(self) -> LinkGraph | None:
        """The derived wikilink graph, open with the index."""
        return self.search.links

    @property
    def index_ready(self) -> asyncio.Event:
        """Set once the search index is open."""
        return self.search.ready

    @property
    def index_failure(self) -> Exception | None:
        """Why the index did not open (None: it opened, or has not failed yet)."""
        return self.search.failure

    @property
    def model(self) -> ChatModel:
        """The chat model for checkpoints and summaries (the summarizer's, built on first use)."""
        return self.summarizer.model

    @property
    def tool_results(self) -> ToolResultStore:
        """The one tool-result store (oversized outputs under `tool_result/`)."""
        return self.conversation.store

    # ------------------------------------------------------------------ start and stop
    async def start(
        self,
        *,
        wait_for_index: bool = True,
        recover: bool = False,
        background: bool = True,
        watch: bool | None = None,
        progress: Progress | None = None,
    ) -> None:
        """`open` with the plan of the seed's flags (see `StartPlan.of`)."""
        plan = StartPlan.of(
            self.settings,
            wait_for_index=wait_for_index,
            recover=recover,
            background=background,
            watch=watch,
        )
        await self.open(plan, progress)

    async def open(self, plan: StartPlan, progress: Progress | None = None) -> None:
        """Create the layout, clean expired tool results and stale temp files, fold in what an
        earlier run put aside; then what `plan` says: recover a crashed run's turns, retry
        pending summaries and Auto Dream, open the index (`progress` follows its first sync)
        and watch edits and resource/."""
        await asyncio.to_thread(self.layout.ensure)
        await asyncio.to_thread(self.tool_results.cleanup)
        await asyncio.to_thread(remove_stale_temp_files, self.layout.root)
        await fold_in(self.conversation)  # what an earlier run put aside for a full disk
        if plan.recover:
            await self.handover.recover_unsaved()
        if plan.retry:  # a recovered task is running: the retry leaves it
            if self.settings.memory.summarize:  # off: records wait for a start with it on
                await self.tasks.retry_pending()
            await self.dreaming.maybe_start()
        if self.search.enabled:
            self.search.open(self.settings.search, plan.watch_index, progress)
            if plan.wait_for_index:
                await self.search.wait()
        if plan.watch_resources and self.search.enabled and self.settings.search.watch:
            from remecli.knowledge.resources.watch import ResourceWatcher

            debounce = self.settings.search.watch_debounce_ms
            self.resource_watcher = ResourceWatcher(self.resources, debounce)
            self.resource_watcher.start()

    async def close(self, *, wait: bool = True, timeout: float | None = None) -> list[str]:
        """Save the conversation, finish (or, with wait=False, cancel and record) background
        summaries, stop the watchers and the index, clean expired tool results; one status
        line per summary."""
        if self.conversation.bound:
            try:
                await self.conversation.save()
            except Exception:  # e.g. a full disk: everything below must still stop
                log.exception("could not save the conversation on close")
        await self.dreaming.stop()  # a background dream is redone next time; never waited for
        lines = await (self.tasks.await_all(timeout) if wait else self.tasks.cancel_all())
        await self.dreaming.stop()  # one the last summaries may have started
        await self.vector.close()
        if self.resource_watcher is not None:
            await self.resource_watcher.stop()
            self.resource_watcher = None
        await self.search.close()
        await asyncio.to_thread(self.tool_results.cleanup)
        await asyncio.to_thread(self.layout.make_private)  # what the index made since the start
        self.conversation.lock.release()
        return lines + await asyncio.to_thread(put_aside, self.conversation, self.tasks.waits)

    # ------------------------------------------------------------------ the parts' entry points
    async def search_memory(self, request: SearchRequest, *, links: bool = True) -> list[SearchHit]:
        """Hits of one resolved request, best first (each with its note's links)."""
        return await self.search.search(request, links=links)

    async def wait_for_index(self) -> MemoryIndex | None:
        """The open index, waiting for it if it is being opened (None when search is off)."""
        return await self.search.wait()

    async def retrieve_vector_memory(self, query: str, top_k: int = 5) -> list[dict[str, object]]:
        """Personal, task and tool memories relevant to `query` (`memory.vector.enabled`)."""
        return await self.vector.retrieve(query, top_k)

    async def dream(self, date: dt.date | None = None) -> DreamResult:
        """Consolidate new and changed cards into the digest now (`/dream`)."""
        return await self.dreaming.run(date)

    def hand_over_unsaved(self) -> int:
        """Hand the context's unsaved messages to the summarizer (marked: never twice)."""
        return self.handover.hand_over_unsaved()

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
        parts = (self.conversation, self.dreaming, self.vector, self.resources, self.handover)
        for part in parts:
            part.settings = self.settings  # settings are frozen: each part gets the new copy
        self.conversation.update_params(max_input_length, memory_compact_ratio, language)
        self.summarizer.update_params(max_input_length=max_input_length, language=language)
