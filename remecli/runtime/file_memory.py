"""`FileMemory`: the seed's memory API, a facade over a `Runtime`.

The seed's methods: start, close, compact_memory, summary_memory, compact_tool_result,
add_async_summary_task, await_summary_tasks, memory_search, get_in_memory_memory, update_params.
The runtime's parts are reachable under the same names (`memory.conversation`, `memory.tasks`
…); the four callbacks are subscriptions to the runtime's typed events.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from remecli.config.settings import Settings
from remecli.conversation.conversation import Conversation
from remecli.conversation.notices import MemoryNotice
from remecli.conversation.session import Session
from remecli.conversation.tool_results import ToolResultStore, offload_messages
from remecli.conversation.vector_memory import VectorMemory
from remecli.knowledge.background.records import SummaryOutcome
from remecli.knowledge.background.tasks import SummaryTasks
from remecli.knowledge.dreaming import Dreaming
from remecli.knowledge.resources.cards import ResourceCards
from remecli.knowledge.summary.summarizer import Summarizer, SummaryResult
from remecli.llm.chat_model import ChatModel
from remecli.llm.tokens import TokenCounter
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter
from remecli.runtime.build import build_runtime
from remecli.runtime.events import NOTICES, DreamDone, SummaryDone, SummaryTasksChanged
from remecli.runtime.modes import Mode
from remecli.runtime.runtime import Runtime

if TYPE_CHECKING:
    import asyncio

    from remecli.knowledge.dream.runner import DreamResult
    from remecli.knowledge.resources.watch import ResourceWatcher
    from remecli.llm.conversation_state import ContextMessage
    from remecli.notes.links import LinkGraph
    from remecli.search import MemoryIndex
    from remecli.search.hits import SearchHit
    from remecli.search.request import SearchRequest
    from remecli.search.sync import Progress

T = TypeVar("T")


class _Part(Generic[T]):
    """An attribute of the facade that is the runtime's (dotted `path` under it)."""

    def __init__(self, path: str = "") -> None:
        self.path = path

    def __set_name__(self, owner: type, name: str) -> None:
        self.path = self.path or name

    @overload
    def __get__(self, obj: None, owner: type) -> _Part[T]: ...
    @overload
    def __get__(self, obj: FileMemory, owner: type) -> T: ...
    def __get__(self, obj: FileMemory | None, owner: type) -> _Part[T] | T:
        if obj is None:
            return self
        target: Any = obj.runtime
        for name in self.path.split("."):
            target = getattr(target, name)
        return target  # type: ignore[no-any-return]

    def __set__(self, obj: FileMemory, value: T) -> None:
        *parents, name = self.path.split(".")
        target: Any = obj.runtime
        for parent in parents:
            target = getattr(target, parent)
        setattr(target, name, value)


class FileMemory:
    """File-based long-term memory for one working dir, and the memory of its conversation."""

    settings: _Part[Settings] = _Part()
    layout: _Part[WorkingDir] = _Part()
    counter: _Part[TokenCounter] = _Part()
    writer: _Part[MemoryWriter] = _Part()
    summarizer: _Part[Summarizer] = _Part()
    conversation: _Part[Conversation] = _Part()
    tasks: _Part[SummaryTasks] = _Part()
    dreaming: _Part[Dreaming] = _Part()
    vector: _Part[VectorMemory] = _Part()
    resources: _Part[ResourceCards] = _Part()
    index: _Part[MemoryIndex | None] = _Part("search.index")  # read_only.py opens its own
    links: _Part[LinkGraph | None] = _Part("search.links")
    index_ready: _Part[asyncio.Event] = _Part("search.ready")
    index_failure: _Part[Exception | None] = _Part("search.failure")
    search_enabled: _Part[bool] = _Part("search.enabled")
    _resource_watcher: _Part[ResourceWatcher | None] = _Part("resource_watcher")
    tool_results: _Part[ToolResultStore] = _Part()
    model: _Part[ChatModel] = _Part()

    def __init__(
        self,
        working_dir: str | Path = ".reme",
        *,
        settings: Settings | None = None,
        model: ChatModel | None = None,
        max_input_length: int | None = None,
        memory_compact_ratio: float | None = None,
        language: str | None = None,
        tool_result_threshold: int | None = None,
        retention_days: int | None = None,
        search: bool = True,
        workspace: Path | None = None,
        on_summary_change: Callable[[int], object] | None = None,
        on_summary_done: Callable[[SummaryOutcome], object] | None = None,
        on_notice: Callable[[MemoryNotice], object] | None = None,
        on_dream_done: Callable[[DreamResult], object] | None = None,
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
        settings = settings.with_changes({k: v for k, v in changes.items() if v is not None})
        self.runtime = build_runtime(
            settings, Mode.LIBRARY, workspace=workspace, model=model, search=search
        )
        events = self.runtime.events
        if on_summary_change is not None:
            events.subscribe(SummaryTasksChanged, lambda e: on_summary_change(e.running))
        if on_summary_done is not None:
            events.subscribe(SummaryDone, lambda e: on_summary_done(e.outcome))
            self.runtime.tasks.live = True  # a front-end shows outcomes as they come
        if on_notice is not None:
            events.subscribe_any(on_notice, NOTICES)  # type: ignore[arg-type]
        if on_dream_done is not None:
            events.subscribe(DreamDone, lambda e: on_dream_done(e.result))

    @classmethod
    def over(cls, runtime: Runtime) -> FileMemory:
        """The seed's API over a runtime built by `build_runtime`."""
        memory = cls.__new__(cls)
        memory.runtime = runtime
        return memory

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
        None: with `background`). A one-shot answer (`-p`) leaves earlier runs' pending and
        crashed work to the next session."""
        await self.runtime.start(
            wait_for_index=wait_for_index,
            recover=recover,
            background=background,
            watch=watch,
            progress=progress,
        )

    async def close(self, *, wait: bool = True, timeout: float | None = None) -> list[str]:
        """Save the conversation, finish (or, with wait=False, cancel and record) background
        summaries, stop the watchers; one status line per summary."""
        return await self.runtime.close(wait=wait, timeout=timeout)

    async def dream(self, date: dt.date | None = None) -> DreamResult:
        """Consolidate new and changed cards into the digest now (`/dream`)."""
        return await self.runtime.dream(date)

    def hand_over(self, messages: list[ContextMessage]) -> int:
        """Summarize the messages leaving the context not handed over yet; how many were."""
        return self.runtime.handover.hand_over(messages)

    def hand_over_unsaved(self) -> int:
        """Hand the context's unsaved messages to the summarizer (marked: never twice); how many."""
        return self.runtime.handover.hand_over_unsaved()

    async def recover_unsaved(self) -> int:
        """Summarize what a crashed run never saved (see `recovery`); returns how many."""
        return await self.runtime.handover.recover_unsaved()

    async def compact_memory(
        self, messages: list[ContextMessage], previous_summary: str = "", focus: str = ""
    ) -> str:
        """A structured checkpoint of `messages`, merged into `previous_summary`."""
        compactor = self.conversation.get_compactor()
        result = await compactor.compact(messages, previous_summary, focus)
        return result.summary

    async def summary_memory(self, messages: list[ContextMessage]) -> SummaryResult:
        """Merge what is worth keeping from `messages` into today's `memory/YYYY-MM-DD.md` now."""
        return await self.summarizer.summarize(messages)

    async def compact_tool_result(self, messages: list[ContextMessage]) -> list[ContextMessage]:
        """Offload oversized tool outputs in `messages` (in place) to `tool_result/`; returns them."""
        import asyncio

        await asyncio.to_thread(offload_messages, self.tool_results, messages)
        return messages

    def add_async_summary_task(self, messages: list[ContextMessage]) -> str:
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
    ) -> list[dict[str, object]]:
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
        return await self.runtime.search_memory(request, links=links)

    async def retrieve_vector_memory(self, query: str, top_k: int = 5) -> list[dict[str, object]]:
        """Personal, task and tool memories relevant to `query` (`memory.vector.enabled`)."""
        return await self.runtime.retrieve_vector_memory(query, top_k)

    async def wait_for_index(self) -> MemoryIndex | None:
        """The open index, waiting for it if it is being opened (None when search is off)."""
        return await self.runtime.wait_for_index()

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
        self.runtime.update_params(max_input_length, memory_compact_ratio, language)
