"""The callbacks of background summaries (`tasks.SummaryTasks`): run without ever
raising into the task that calls them; an async callback's awaitable is kept referenced until
it ends."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable

from remecli.knowledge.background.records import SummaryOutcome

log = logging.getLogger("remecli.knowledge.background.tasks")


class OutcomeCallbacks:
    """`on_done(outcome)` and the awaitables callbacks return, for a task owner."""

    on_done: Callable[[SummaryOutcome], object] | None
    _callbacks: set[asyncio.Future[object]]

    def _keep(self, result: Awaitable[object] | None) -> None:
        """An async callback's awaitable: run it, kept referenced until it ends."""
        if result is not None:
            task = asyncio.ensure_future(result)
            self._callbacks.add(task)
            task.add_done_callback(self._callbacks.discard)

    async def _notify(self, outcome: SummaryOutcome) -> None:
        if self.on_done is None or outcome.status == "skipped":
            return
        result = self._call(self.on_done, outcome)
        if inspect.isawaitable(result):
            try:
                await result
            except Exception:
                log.exception("summary on_done callback failed")

    @staticmethod
    def _call(callback: Callable[..., object], *args: object) -> Awaitable[object] | None:
        try:
            result = callback(*args)
        except Exception:
            log.exception("summary callback failed")
            return None
        return result if inspect.isawaitable(result) else None
