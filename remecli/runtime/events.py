"""The runtime's typed events, on one bus, in place of the four constructor callbacks.

What the memory runtime tells a front-end: how many memory tasks run (`SummaryTasksChanged`),
how a background summary ended (`SummaryDone`), how a dream ended (`DreamDone`), and the
conversation's notices (`MemoryNotice`: usage, compaction, offload, disk full; already core
events). A consumer subscribes to the kinds it wants; a failing subscriber is logged, never
breaks the memory work that published the event.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, get_args

from remecli.conversation.notices import MemoryNotice

if TYPE_CHECKING:
    from remecli.knowledge.background.records import SummaryOutcome
    from remecli.knowledge.dream.runner import DreamResult

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SummaryTasksChanged:
    """The number of memory tasks running (background summaries and a dream) changed."""

    running: int


@dataclass(frozen=True)
class SummaryDone:
    """A background summary ended (written, nothing, failed, paused …)."""

    outcome: SummaryOutcome


@dataclass(frozen=True)
class DreamDone:
    """A dream (Auto Dream or `/dream`) ended."""

    result: DreamResult


RuntimeEvent = SummaryTasksChanged | SummaryDone | DreamDone | MemoryNotice
NOTICES: tuple[type, ...] = get_args(MemoryNotice)  # the conversation's notice classes
E = TypeVar("E")


class EventBus:
    """Subscribers by event class; `publish` hands an event to each subscriber of its class."""

    def __init__(self) -> None:
        self._subscribers: list[tuple[tuple[type, ...], Callable[[Any], object]]] = []

    def subscribe(self, kind: type[E], handler: Callable[[E], object]) -> Callable[[], None]:
        """Call `handler` with every event of class `kind`; returns the unsubscribe function."""
        return self._add((kind,), handler)

    def subscribe_any(
        self, handler: Callable[[RuntimeEvent], object], kinds: tuple[type, ...] = ()
    ) -> Callable[[], None]:
        """Call `handler` with every event of `kinds` (default: every runtime event), e.g.
        `kinds=NOTICES`; returns the unsubscribe function."""
        return self._add(kinds or (SummaryTasksChanged, SummaryDone, DreamDone, *NOTICES), handler)

    def _add(
        self,
        kinds: tuple[type, ...],
        handler: Callable[[E], object],  # E: the event classes of `kinds`
    ) -> Callable[[], None]:
        entry = (kinds, handler)
        self._subscribers.append(entry)

        def unsubscribe() -> None:
            if entry in self._subscribers:
                self._subscribers.remove(entry)

        return unsubscribe

    def publish(self, event: RuntimeEvent) -> Awaitable[None] | None:
        """Hand `event` to its subscribers in order; the awaitable of those that are async
        (None when all were sync). A subscriber's error is logged."""
        pending: list[Awaitable[object]] = []
        for kinds, handler in list(self._subscribers):
            if not isinstance(event, kinds):
                continue
            try:
                result = handler(event)
            except Exception:  # noqa: BLE001 - a front-end must not break the memory work
                log.exception("%s subscriber failed", type(event).__name__)
                continue
            if inspect.isawaitable(result):
                pending.append(result)
        return _all(pending) if pending else None


async def _all(pending: list[Awaitable[object]]) -> None:
    for result in await asyncio.gather(*pending, return_exceptions=True):
        if isinstance(result, BaseException):
            log.error("an event subscriber failed", exc_info=result)
