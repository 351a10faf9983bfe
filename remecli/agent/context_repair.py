"""Keep the agent's context well-formed after a failed model call."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

from remecli.llm.runtime.agents import MiddlewareBase

FAILED_NOTE = (
    "<system-reminder>This tool call was not executed: the reply failed.</system-reminder>"
)
INTERRUPTED_MARK = "[interrupted]"  # the end of a reply the user stopped (or that failed)
NO_REPLY_MARK = "[interrupted: no reply]"  # between two user turns whose first got no answer
UNFINISHED_KEY = "remecli_unfinished"  # metadata of a reply that never reached its end


def repair_after_error(context: list[Any], user_msg_id: str) -> bool:
    """Make `context` safe to send again after an error in the reply to `user_msg_id`.

    If the reply produced nothing, the user message is removed (it stays in the transcript and
    on screen; the caller tells the user it was not answered) and True is returned. Otherwise
    the partial reply is kept and every tool call without a result gets an error result, so no
    provider rejects the next request for an orphan tool call.
    """
    from remecli.llm.runtime.messages import ToolCallBlock, ToolResultBlock, ToolResultState

    index = next((i for i, m in enumerate(context) if m.id == user_msg_id), None)
    if index is None:
        return False
    if index == len(context) - 1:
        del context[index]
        return True
    for msg in context[index + 1 :]:
        if msg.role != "assistant":
            continue
        answered = {b.id for b in msg.content if isinstance(b, ToolResultBlock)}
        for block in list(msg.content):
            if isinstance(block, ToolCallBlock) and block.id not in answered:
                msg.content.append(
                    ToolResultBlock(
                        id=block.id,
                        name=block.name,
                        output=FAILED_NOTE,
                        state=ToolResultState.ERROR,
                    )
                )
    return False


def _valid_arguments(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (TypeError, ValueError):
        return False


def repaired_arguments(text: str) -> str:
    """Tool-call arguments as a JSON object text: repaired if possible, else `{}`.

    agentscope repairs a model's truncated or malformed arguments to run the tool, but keeps
    the raw text in the context; strict providers then reject every later request ("arguments
    is not valid JSON"), so what we send is always well-formed.
    """
    from json_repair import repair_json

    try:
        obj = repair_json(text or "{}", return_objects=True)
    except Exception:  # json_repair raises a few kinds; any failure means "unrepairable"
        obj = None
    return json.dumps(obj if isinstance(obj, dict) else {}, ensure_ascii=False)


def well_formed_tool_calls(messages: list[Any]) -> list[Any]:
    """`messages` with every tool call's arguments valid JSON (copies only where needed)."""
    out = []
    for msg in messages:
        bad = [
            b
            for b in msg.content
            if getattr(b, "type", None) == "tool_call" and not _valid_arguments(b.input)
        ]
        if bad:
            msg = msg.model_copy(deep=True)
            for block in msg.content:
                if getattr(block, "type", None) == "tool_call" and not _valid_arguments(
                    block.input
                ):
                    block.input = repaired_arguments(block.input)
        out.append(msg)
    return out


def mark_interrupted(messages: list[Any], context_ids: set[str], reply_id: str | None) -> list[Any]:
    """`messages` as the model should read them after an interruption (copies where changed).

    An assistant reply of the context that never finished (stopped by the user, or cut by an
    error) ends with `[interrupted]`, so the model does not take it for a complete answer; a
    user turn of the context that got no reply at all is followed by a short assistant note,
    so the request never holds two user turns in a row. The reply in flight (`reply_id`) and
    messages outside the context (system prompt, checkpoint) are left as they are.
    """
    from remecli.llm.runtime.messages import AssistantMsg, TextBlock

    out: list[Any] = []
    for msg in messages:
        in_context = msg.id in context_ids
        if (
            in_context
            and msg.role == "user"
            and out
            and out[-1].role == "user"
            and out[-1].id in context_ids
        ):
            out.append(AssistantMsg(name="assistant", content=NO_REPLY_MARK))
        if (
            in_context
            and msg.role == "assistant"
            and msg.id != reply_id
            and msg.metadata.get(UNFINISHED_KEY)
            and not _ends_with_mark(msg)
        ):
            msg = msg.model_copy(deep=True)
            msg.content.append(TextBlock(text=INTERRUPTED_MARK))
        out.append(msg)
    return out


def _ends_with_mark(msg: Any) -> bool:
    texts = [b.text for b in msg.content if getattr(b, "type", None) == "text"]
    return bool(texts) and texts[-1].rstrip().endswith(INTERRUPTED_MARK)


def mark_unfinished_reply(context: list[Any], inputs: Any) -> int:
    """Flag the assistant messages answering `inputs` as unfinished; how many were flagged."""
    ids = {m.id for m in (inputs if isinstance(inputs, list) else [inputs]) if hasattr(m, "id")}
    index = next((i for i, m in enumerate(context) if m.id in ids), None)
    if index is None:
        return 0
    flagged = 0
    for msg in context[index + 1 :]:
        if msg.role == "assistant":
            msg.metadata[UNFINISHED_KEY] = True
            flagged += 1
    return flagged


class WellFormedRequests(MiddlewareBase):
    """Before each model call: valid tool-call arguments, interrupted replies marked, never
    two user turns in a row. Around each reply: a reply that does not end normally
    (cancelled, failed) is flagged so later requests show it as interrupted."""

    async def on_reply(
        self, agent: Any, input_kwargs: dict[str, Any], next_handler: Any
    ) -> AsyncGenerator[Any, None]:
        """Pass the reply through; flag it unfinished unless its end event says completed."""
        from remecli.llm.runtime.agents import ReplyEndEvent

        finished = False
        try:
            async for item in next_handler(**input_kwargs):
                if isinstance(item, ReplyEndEvent):
                    reason = str(getattr(item.finished_reason, "value", item.finished_reason))
                    finished = reason in ("completed", "exceed_max_iters")
                yield item
        finally:
            if not finished:
                context = getattr(getattr(agent, "state", None), "context", [])
                mark_unfinished_reply(context, input_kwargs.get("inputs"))

    async def on_model_call(
        self, agent: Any, input_kwargs: dict[str, Any], next_handler: Any
    ) -> Any:
        """Send the repaired messages."""
        state = getattr(agent, "state", None)
        context_ids = {m.id for m in getattr(state, "context", [])}
        messages = well_formed_tool_calls(input_kwargs["messages"])
        messages = mark_interrupted(messages, context_ids, getattr(state, "reply_id", None))
        return await next_handler(**{**input_kwargs, "messages": messages})
