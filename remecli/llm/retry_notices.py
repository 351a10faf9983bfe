"""Retries announced to front-ends ("retrying (2/3) after HTTP 500…") without importing the
agent runtime: a front-end subscribes before agentscope is loaded (the window paints first)."""

from __future__ import annotations

from collections.abc import Callable
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


_listeners: list[Callable[[RetryNotice], None]] = []


def add_retry_listener(listener: Callable[[RetryNotice], None]) -> Callable[[], None]:
    """Call `listener` before every retry (any model call); returns a function that removes it."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


__all__ = ["RetryNotice", "add_retry_listener"]
