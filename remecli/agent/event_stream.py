"""Merge an async source (the agent's reply) with side notices (compaction, memory) into one
ordered stream, so a front-end sees "compacting…" while the model is still busy."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

_END = object()


class NoticeChannel:
    """Where callbacks drop notices; the stream currently being consumed picks them up."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Any] | None = None
        self.backlog: list[Any] = []
        self.listener: Callable[[Any], Any] | None = None

    def put(self, item: Any) -> None:
        """Deliver `item` to the open stream, else to the idle listener (the `ChatSession`,
        whose event stream carries background notices live), else keep it for the next stream."""
        if self._queue is not None:
            self._queue.put_nowait(("notice", item))
        elif self.listener is not None:
            self.listener(item)
        else:
            self.backlog.append(item)

    async def merge(
        self, source: Callable[[], AsyncIterator[Any]]
    ) -> AsyncIterator[tuple[str, Any]]:
        """Yield ("item", x) from `source()` and ("notice", n) as they come, in arrival order.

        An exception from the source is yielded as ("error", exc). If the consumer stops early
        (cancel), the source is cancelled and awaited, so it can close its tool calls; a source
        that absorbs the cancel (the agent runtime handles interrupts itself, and can swallow
        one that lands in the wrong place) is cancelled again after a grace period.
        """
        queue: asyncio.Queue[Any] = asyncio.Queue()
        for item in self.backlog:
            queue.put_nowait(("notice", item))
        self.backlog.clear()
        self._queue = queue

        async def pump() -> None:
            try:
                async for item in source():
                    await queue.put(("item", item))
            except Exception as exc:
                await queue.put(("error", exc))
            finally:
                await queue.put(("end", _END))

        task = asyncio.create_task(pump())
        try:
            while True:
                kind, item = await queue.get()
                if kind == "end":
                    break
                yield kind, item
            while not queue.empty():  # notices that raced the end
                kind, item = queue.get_nowait()
                if kind == "notice":
                    yield kind, item
        finally:
            self._queue = None
            while not queue.empty():  # unread notices (e.g. a consumer that was cancelled)
                kind, item = queue.get_nowait()
                if kind == "notice":
                    self.put(item)
            await _cancel_insisting(task)

    async def run(self, work: Callable[[], Awaitable[Any]]) -> AsyncIterator[tuple[str, Any]]:
        """Run one coroutine and stream its notices; its result comes last as ("item", result)."""

        async def single() -> AsyncIterator[Any]:
            yield await work()

        async for pair in self.merge(single):
            yield pair


CANCEL_GRACE_S = 1.0  # time a cancelled source gets to finish before it is cancelled again


async def _cancel_insisting(task: asyncio.Task[None]) -> None:
    """Cancel `task` and wait for it, cancelling again while it keeps running."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=CANCEL_GRACE_S)
    if not task.cancelled():
        task.exception()  # retrieved: an error while stopping is not "never retrieved"
