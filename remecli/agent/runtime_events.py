"""The memory runtime's typed events, turned into the core events a front-end renders."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from remecli.agent import events as ev
from remecli.runtime.events import NOTICES, DreamDone, SummaryDone, SummaryTasksChanged

if TYPE_CHECKING:
    from remecli.knowledge.background.records import SummaryOutcome
    from remecli.runtime.events import EventBus


def follow(
    events: EventBus, put: Callable[[object], None], summary_done: Callable[[SummaryOutcome], None]
) -> None:
    """Subscribe to `events`: the task count, dream outcomes and the conversation's notices go
    to `put` as core events; a summary's outcome to `summary_done`."""
    events.subscribe(SummaryTasksChanged, lambda e: put(ev.BackgroundTasks(e.running)))
    events.subscribe(SummaryDone, lambda e: summary_done(e.outcome))
    events.subscribe(DreamDone, lambda e: put(ev.Notice(e.result.message, "memory")))
    events.subscribe_any(put, NOTICES)  # the notices are core events already
