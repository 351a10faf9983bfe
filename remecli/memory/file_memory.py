"""`FileMemory`: the memory system as a library, usable without the TUI (and used by it).

Markdown files are the source of truth (`MEMORY.md`, `memory/YYYY-MM-DD.md`); the search index
is derived from them. The methods are the seed's: start, close, compact_memory, summary_memory,
compact_tool_result, add_async_summary_task, await_summary_tasks, memory_search,
get_in_memory_memory, update_params.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from remecli.config.settings import Settings
from remecli.memory.background import SummaryOutcome, SummaryTasks, pending_dir_of
from remecli.memory.layout import WorkingDir
from remecli.memory.session import Session
from remecli.memory.summarizer import Summarizer, SummaryResult
from remecli.memory.tool_results import ToolResultStore, offload_messages

log = logging.getLogger(__name__)


class FileMemory:
    """File-based long-term memory for one working dir."""

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
        on_summary_change: Callable[[int], Any] | None = None,
        on_summary_done: Callable[[SummaryOutcome], Any] | None = None,
    ) -> None:
        if settings is None:
            from remecli.config import load_settings

            settings = load_settings([])  # defaults < environment (REME_LLM_*, .env)
        settings = settings.model_copy(deep=True)
        settings.working_dir = str(Path(working_dir).expanduser().resolve())
        top = {
            "max_input_length": max_input_length,
            "memory_compact_ratio": memory_compact_ratio,
            "language": language,
        }
        for key, value in top.items():
            if value is not None:
                setattr(settings, key, value)
        if tool_result_threshold is not None:
            settings.memory.tool_result_threshold = tool_result_threshold
        if retention_days is not None:
            settings.memory.retention_days = retention_days
        self.settings = Settings.model_validate(settings.model_dump())
        self.layout = WorkingDir(Path(self.settings.working_dir))
        self.tool_results = ToolResultStore(
            self.layout.tool_result_dir,
            self.settings.memory.tool_result_threshold,
            self.settings.memory.retention_days,
        )
        self.summarizer = Summarizer(self.settings, self.layout, model=model)
        self.tasks = SummaryTasks(
            self.summarizer,
            pending_dir_of(self.layout),
            on_change=on_summary_change,
            on_done=on_summary_done,
        )
        self.search_enabled = search
        self.index: Any = None
        self.index_ready: asyncio.Event | None = None  # set once the search index is open
        self._session: Session | None = None
        self._compactor: Any = None
        self._index_task: asyncio.Task | None = None

    # ---------------------------------------------------------------- lifecycle
    async def start(self, *, wait_for_index: bool = True) -> None:
        """Create the layout, clean expired tool results and stale temp files, retry summaries
        left pending by an earlier run, and open the search index (watching for edits)."""
        from remecli.atomic_write import remove_stale_temp_files

        await asyncio.to_thread(self.layout.ensure)
        await asyncio.to_thread(self.tool_results.cleanup)
        await asyncio.to_thread(remove_stale_temp_files, self.layout.root)
        await self.tasks.retry_pending()
        if self.index_ready is None:
            self.index_ready = asyncio.Event()
        if self.search_enabled:
            self._index_task = asyncio.create_task(self._open_index())
            if wait_for_index:
                await self._index_task

    async def _open_index(self) -> None:
        from remecli.search import MemoryIndex

        try:
            index = await asyncio.to_thread(
                MemoryIndex.open, self.layout.root, self.settings.search
            )
            await index.sync()
            if self.settings.search.watch:
                index.start_watching()
            self.index = index
            self.index_ready.set()
        except Exception:
            log.exception("memory index failed to open; memory_search stays off")

    async def close(self, *, wait: bool = True, timeout: float | None = None) -> list[str]:
        """Finish (or, with wait=False, cancel and record) background summaries, stop the
        watcher, clean expired tool results. Returns one status line per summary task."""
        lines = await (self.tasks.await_all(timeout) if wait else self.tasks.cancel_all())
        if self._index_task is not None and not self._index_task.done():
            self._index_task.cancel()
            await asyncio.gather(self._index_task, return_exceptions=True)
        if self.index is not None:
            await self.index.stop()
            self.index.close()
            self.index = None
        await asyncio.to_thread(self.tool_results.cleanup)
        return lines

    # ---------------------------------------------------------------- the seed's methods
    @property
    def model(self) -> Any:
        """The chat model for checkpoints and summaries (the summarizer's, built on first use)."""
        return self.summarizer.model

    async def compact_memory(
        self, messages: list[Any], previous_summary: str = "", focus: str = ""
    ) -> str:
        """A structured checkpoint of `messages`, merged into `previous_summary`."""
        from remecli.llm.tokens import get_token_counter
        from remecli.memory.compactor import Compactor

        if self._compactor is None:
            self._compactor = Compactor(
                self.model,
                get_token_counter(self.settings.memory.token_encoding),
                self.settings.language,
                self.settings.max_input_length,
                max_retries=self.settings.llm.max_retries,
            )
        result = await self._compactor.compact(messages, previous_summary, focus)
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
        self, query: str, max_results: int = 5, min_score: float = 0.1
    ) -> list[dict]:
        """Hybrid (BM25 + vector) search over MEMORY.md and memory/*.md."""
        if self.index is None:
            if self._index_task is not None:
                await self._index_task
            if self.index is None:
                return []
        results = await self.index.search(query, int(max_results), float(min_score))
        return [r.to_dict() for r in results]

    def get_in_memory_memory(self) -> Session:
        """The token-aware session of one conversation (created on first call)."""
        if self._session is None:
            from remecli.llm.tokens import get_token_counter

            self._session = Session(
                get_token_counter(self.settings.memory.token_encoding),
                max_input_length=self.settings.max_input_length,
                memory_compact_ratio=self.settings.memory_compact_ratio,
                language=self.settings.language,
            )
        return self._session

    def adopt_session(self, session: Session) -> None:
        """Use `session` (e.g. the agent's) as this memory's in-memory session."""
        self._session = session

    def update_params(
        self,
        max_input_length: int | None = None,
        memory_compact_ratio: float | None = None,
        language: str | None = None,
    ) -> None:
        """Change the window, the compaction ratio or the language at runtime."""
        if max_input_length is not None:
            self.settings.max_input_length = max_input_length
        if memory_compact_ratio is not None:
            self.settings.memory_compact_ratio = memory_compact_ratio
        if language is not None:
            self.settings.language = language
        if self._session is not None:
            self._session.update_params(max_input_length, memory_compact_ratio, language)
        if self._compactor is not None:
            self._compactor.update_params(max_input_length, language)
        self.summarizer.update_params(max_input_length=max_input_length, language=language)
