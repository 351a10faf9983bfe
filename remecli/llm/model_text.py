"""One model call of a memory job (compaction, dream): the text of the complete answer."""

from __future__ import annotations

import asyncio
from typing import Any


async def answer_text(model: Any, messages: list[Any], what: str) -> str:
    """Call `model` once and return its answer's text (streamed or not).

    Raises `asyncio.CancelledError` when the call was interrupted: agentscope's model swallows
    the cancellation and returns an answer marked `INTERRUPTED` instead.
    """
    from agentscope.model import ChatResponse, FinishedReason

    response = await model(messages=messages)
    final = None
    interrupted = False
    if isinstance(response, ChatResponse):
        final = response
        interrupted = response.finished_reason == FinishedReason.INTERRUPTED
    else:
        async for chunk in response:
            interrupted |= chunk.finished_reason == FinishedReason.INTERRUPTED
            if chunk.is_last or final is None:
                final = chunk
    if interrupted:
        raise asyncio.CancelledError(f"{what} interrupted")
    if final is None:
        raise RuntimeError("the model returned an empty answer")
    return "".join(getattr(b, "text", "") for b in final.content if b.type == "text")
