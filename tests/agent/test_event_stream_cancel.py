"""Cancelling a reply stops its source even when the source absorbs the first cancel (the agent
runtime handles interrupts itself; one landing in the wrong place used to leave the reply
running until the model finished, so Esc seemed to do nothing)."""

from __future__ import annotations

import asyncio

from remecli.agent.event_stream import NoticeChannel


async def test_a_source_that_swallows_the_first_cancel_is_still_stopped() -> None:
    stopped = asyncio.Event()
    swallowed = []

    async def stubborn_reply():
        yield "first words"
        try:
            await asyncio.sleep(60)  # the model keeps streaming
        except asyncio.CancelledError:
            swallowed.append(True)  # absorbed, as an interrupt handler might
        try:
            await asyncio.sleep(60)
        finally:
            stopped.set()

    async def consume() -> None:
        async for _ in NoticeChannel().merge(stubborn_reply):
            pass

    consumer = asyncio.create_task(consume())
    await asyncio.sleep(0.1)
    consumer.cancel()
    await asyncio.wait_for(stopped.wait(), timeout=10)  # not the 60 s of the "model"
    await asyncio.wait_for(asyncio.gather(consumer, return_exceptions=True), timeout=10)
    assert swallowed == [True] and consumer.cancelled()
