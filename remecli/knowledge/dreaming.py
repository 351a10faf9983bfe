"""The runtime's Auto Dream: on demand (`/dream`, `remecli dream`) or in the background when the
last successful dream is older than `memory.dream.interval_hours` and there are new cards.

A background dream never blocks a reply; it counts as a running memory task (the status line's
spinner), and on exit it is cancelled — a cancelled dream leaves the digest as it was and its
cards stay pending for the next run.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from remecli.config.settings import Settings
from remecli.knowledge.model_gate import ModelGate
from remecli.llm.chat_model import ChatModel
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter

if TYPE_CHECKING:
    from remecli.knowledge.dream.runner import DreamResult

log = logging.getLogger(__name__)


def _log_failure(task: asyncio.Task[object]) -> None:
    """A background dream's exception is logged (never left unretrieved)."""
    if not task.cancelled() and task.exception() is not None:
        log.error("background dream failed", exc_info=task.exception())


class Dreaming:
    """At most one dream of this process at a time (the lock file keeps other processes out)."""

    def __init__(
        self,
        settings: Settings,
        layout: WorkingDir,
        model_of: Callable[[], ChatModel],
        on_change: Callable[[bool], object] | None = None,
        on_done: Callable[[DreamResult], object] | None = None,
        *,
        writer: MemoryWriter,
        gate: ModelGate,
    ) -> None:
        self.settings = settings
        self.gate = gate  # no dream starts without a configured model
        self.layout = layout
        self.writer = writer  # the composition root's one writer (versions, redaction)
        self._model_of = model_of
        self.on_change = on_change
        self.on_done = on_done
        self._task: asyncio.Task[DreamResult] | None = None
        self._busy = False  # inside a dream (the task may still be finishing its bookkeeping)

    @property
    def running(self) -> bool:
        """True while a dream of this process runs."""
        return self._busy

    async def run(self, date: dt.date | None = None) -> DreamResult:
        """Dream now (waits for one already running here, then runs again if asked for)."""
        if self._task is not None and not self._task.done():
            await asyncio.gather(self._task, return_exceptions=True)
        self._task = asyncio.create_task(self._dream(date))
        return await asyncio.shield(self._task)

    async def maybe_start(self) -> bool:
        """Start a background dream if one is due; True if started."""
        from remecli.knowledge.dream.due import dream_due

        memory = self.settings.memory
        busy = self._task is not None and not self._task.done()
        if busy or not memory.summarize or not memory.dream.auto:
            return False
        try:
            due = await asyncio.to_thread(dream_due, self.settings, self.layout)
        except Exception:  # a damaged catalog must not break a turn
            log.exception("could not tell whether a dream is due")
            return False
        if not due:
            return False
        refusal = self.gate.refusal("Auto Dream")
        if refusal is not None:
            if refusal:
                from remecli.knowledge.dream.runner import DreamResult

                self._report(DreamResult("failed", refusal))
            return False
        self._task = asyncio.create_task(self._dream(None))
        self._task.add_done_callback(_log_failure)
        return True

    async def stop(self) -> None:
        """Cancel a running dream (safe: the digest stays as it was, the cards stay pending)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._task = None

    async def _dream(self, date: dt.date | None) -> DreamResult:
        from remecli.knowledge.dream.runner import DreamResult, dream

        problem = self.gate.problem()
        if problem is not None:  # asked for (/dream) without a model: nothing is sent
            result = DreamResult("failed", f"Dream did not run: {problem}")
            self._report(result)
            return result
        self._busy = True
        self._changed(True)
        try:
            result = await dream(
                self.settings, self.layout, model=self._model_of(), date=date, writer=self.writer
            )
        finally:
            self._busy = False
            self._changed(False)
        log.info("dream: %s — %s", result.status, result.message)
        if result.status in ("done", "partial"):
            from remecli.knowledge.memory_md.block import refresh_memory_md

            try:
                await asyncio.to_thread(refresh_memory_md, self.layout, self.writer)
            except Exception:  # the digest is written; the block follows next time
                log.exception("could not refresh MEMORY.md's digest block")
        if result.status in ("done", "partial", "nothing"):
            moved = await self._keep_memory_md_in_budget()
            if moved:
                result.message += (
                    f"; MEMORY.md was over its prompt budget: {len(moved)} section"
                    f"{'s' if len(moved) != 1 else ''} moved to {', '.join(moved)}"
                )
        self._report(result)
        return result

    async def _keep_memory_md_in_budget(self) -> list[str]:
        """Consolidate MEMORY.md past its prompt budget (`memory_md.budget`); nodes written."""
        from remecli.knowledge.memory_md.budget import consolidate
        from remecli.llm.tokens import get_token_counter

        memory = self.settings.memory
        try:
            return await asyncio.to_thread(
                consolidate,
                self.layout,
                self.writer,
                max_lines=memory.memory_md_head_lines,
                max_tokens=memory.memory_md_max_tokens,
                count=lambda text: get_token_counter().count(text),
                today=dt.date.today(),
            )
        except Exception:  # MEMORY.md stays as it is (whole); tried again after the next dream
            log.exception("could not consolidate MEMORY.md")
            return []

    def _report(self, result: DreamResult) -> None:
        if self.on_done is not None:
            try:
                self.on_done(result)
            except Exception:
                log.exception("dream on_done callback failed")

    def _changed(self, running: bool) -> None:
        if self.on_change is not None:
            try:
                self.on_change(running)
            except Exception:
                log.exception("dream on_change callback failed")
