"""One plain model call (compaction, dream, resources, vector memory): the complete answer."""

from __future__ import annotations

from collections.abc import Sequence

from remecli.llm.chat_model import ChatMessage, ChatModel


async def answer_text(model: ChatModel, messages: Sequence[ChatMessage]) -> str:
    """The text of `model`'s whole answer to `messages` (streamed or not).

    Raises `asyncio.CancelledError` when the call was interrupted (see `ChatModel.stream_text`).
    """
    return "".join([piece async for piece in model.stream_text(messages)])
