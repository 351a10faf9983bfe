"""Retries announced to the session that made the call ("retrying (2/3) after HTTP 500…").

No process-global listeners: a chat session sets `RETRY_SINK` in the context its tasks run in,
so every model call made for it (its replies, compactions, background summaries started from
them) reports retries to that session's event stream, and to nobody else.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryNotice:
    """A retry about to happen, for front-ends: "retrying (2/3) after HTTP 500…"."""

    attempt: int  # 1-based number of this retry
    max_retries: int
    cause: str
    delay: float
    what: str

    @property
    def line(self) -> str:
        """The status text."""
        return f"retrying ({self.attempt}/{self.max_retries}) after {self.cause}…"


RetrySink = Callable[[RetryNotice], None]

#: where retries of model calls made in this context are reported (None: only logged)
RETRY_SINK: ContextVar[RetrySink | None] = ContextVar("remecli_retry_sink", default=None)


def announce_retry(notice: RetryNotice) -> None:
    """Report `notice` to the session whose context the failing call runs in, if any."""
    sink = RETRY_SINK.get()
    if sink is not None:
        sink(notice)


__all__ = ["RETRY_SINK", "RetryNotice", "RetrySink", "announce_retry"]
