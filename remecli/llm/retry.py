"""Bounded exponential backoff around model calls: the only retry loop in remecli.

`call_with_backoff` is the loop; `RetryMiddleware` applies it to the agent's model calls and
the compactor applies it to its own requests.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from agentscope.middleware import MiddlewareBase

from remecli.llm.retry_notices import RetryNotice, announce_retry

log = logging.getLogger(__name__)

T = TypeVar("T")
OnRetry = Callable[[int, BaseException, float], None]


def retry_cause(exc: BaseException) -> str:
    """A short name for what failed: "HTTP 500", "a timeout", "a connection error"."""
    import openai

    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return f"HTTP {status}"
    if isinstance(exc, openai.APITimeoutError):
        return "a timeout"
    if isinstance(exc, openai.APIConnectionError):
        return "a connection error"
    return type(exc).__name__


def backoff_delay(attempt: int, base: float = 0.5, cap: float = 8.0) -> float:
    """Delay before retry number `attempt` (0-based): base·2^attempt, capped, with jitter."""
    delay: float = min(cap, base * (2**attempt))
    return delay * (0.75 + random.random() * 0.5)


def retry_after(exc: BaseException, cap: float) -> float:
    """Seconds the server asked to wait (`Retry-After` / `retry-after-ms`), capped; 0 if none."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return 0.0
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, min(cap, float(value) * scale))
        except ValueError:
            return 0.0  # an HTTP date: fall back to our own backoff
    return 0.0


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


async def call_with_backoff(
    call: Callable[[], Awaitable[T]],
    max_retries: int,
    *,
    base_delay: float = 0.5,
    max_delay: float = 8.0,
    retryable: Callable[[BaseException], bool] = is_retryable,
    on_retry: OnRetry | None = None,
    what: str = "model call",
) -> T:
    """`await call()`, retried up to `max_retries` times on a `retryable` error.

    Waits `backoff_delay(attempt)` between attempts. The last error is raised as it is;
    cancellation (`asyncio.CancelledError`) is never retried and propagates at once, also
    from the wait between attempts.
    """
    attempt = 0
    while True:
        try:
            return await call()
        except Exception as exc:
            if attempt >= max_retries or not retryable(exc):
                raise
            delay = max(backoff_delay(attempt, base_delay, max_delay), retry_after(exc, max_delay))
            log.warning("%s failed (%s); retry %d in %.1fs", what, exc, attempt + 1, delay)
            if on_retry is not None:
                on_retry(attempt + 1, exc, delay)
            announce_retry(RetryNotice(attempt + 1, max_retries, retry_cause(exc), delay, what))
            await asyncio.sleep(delay)
            attempt += 1


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
        on_retry: OnRetry | None = None,
    ) -> None:
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.on_retry = on_retry

    async def on_model_call(
        self, agent: Any, input_kwargs: dict[str, Any], next_handler: Callable[..., Any]
    ) -> Any:
        """Call the model; on a retryable error wait and try again."""
        return await call_with_backoff(
            lambda: next_handler(**input_kwargs),
            self.max_retries,
            base_delay=self.base_delay,
            max_delay=self.max_delay,
            on_retry=self.on_retry,
        )
