"""One JSON request (no tools) of dream or resource cards, retried on transient errors."""

from __future__ import annotations

from collections.abc import Sequence

from remecli.llm.chat_model import ChatMessage, ChatModel, JSONSchema, JSONValue


async def ask_json(
    model: ChatModel, messages: Sequence[ChatMessage], schema: JSONSchema, max_retries: int
) -> JSONValue:
    """The JSON answer to `messages`, checked against `schema` (retried on transient errors).

    Raises `remecli.llm.chat_model.JSONAnswerError` (with the answer) when it does not fit.
    """
    from remecli.llm.retry import call_with_backoff

    return await call_with_backoff(
        lambda: model.complete_json(messages, schema), max_retries, what="dream"
    )
