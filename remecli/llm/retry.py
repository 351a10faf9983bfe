"""Bounded exponential backoff around each model call: the only retry loop in remecli."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import Any

from agentscope.middleware import MiddlewareBase

log = logging.getLogger(__name__)


def backoff_delay(attempt: int, base: float = 0.5, cap: float = 8.0) -> float:
    """Delay before retry number `attempt` (0-based): base·2^attempt, capped, with jitter."""
    delay = min(cap, base * (2**attempt))
    return delay * (0.75 + random.random() * 0.5)


def is_retryable(exc: BaseException) -> bool:
    """429, 5xx, timeouts and connection errors are worth retrying; nothing else is."""
    import openai

    return isinstance(
        exc,
        openai.RateLimitError
        | openai.InternalServerError
        | openai.APITimeoutError
        | openai.APIConnectionError,
    )


class RetryMiddleware(MiddlewareBase):
    """Retries a failed model call with exponential backoff, `max_retries` times at most.

    A streamed answer is retried only while the request itself fails (before the first chunk):
    once text has reached the user, a failure is reported rather than silently replayed.
    """

    def __init__(
        self,
        max_retries: int,
        *,
        base_delay: float = 0.5,
        max_delay: float = 8.0,
        on_retry: Callable[[int, BaseException, float], None] | None = None,
    ) -> None:
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.on_retry = on_retry

    async def on_model_call(self, agent: Any, input_kwargs: dict, next_handler: Callable) -> Any:
        """Call the model; on a retryable error wait and try again."""
        attempt = 0
        while True:
            try:
                return await next_handler(**input_kwargs)
            except Exception as exc:
                if attempt >= self.max_retries or not is_retryable(exc):
                    raise
                delay = backoff_delay(attempt, self.base_delay, self.max_delay)
                log.warning("model call failed (%s); retry %d in %.1fs", exc, attempt + 1, delay)
                if self.on_retry is not None:
                    self.on_retry(attempt + 1, exc, delay)
                await asyncio.sleep(delay)
                attempt += 1
