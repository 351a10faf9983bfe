"""Keep the agent's context well-formed after a failed model call."""

from __future__ import annotations

import json
from typing import Any

from agentscope.middleware import MiddlewareBase

FAILED_NOTE = (
    "<system-reminder>This tool call was not executed: the reply failed.</system-reminder>"
)


def repair_after_error(context: list[Any], user_msg_id: str) -> bool:
    """Make `context` safe to send again after an error in the reply to `user_msg_id`.

    If the reply produced nothing, the user message is removed (it stays in the transcript and
    on screen; the caller tells the user it was not answered) and True is returned. Otherwise
    the partial reply is kept and every tool call without a result gets an error result, so no
    provider rejects the next request for an orphan tool call.
    """
    from agentscope.message import ToolCallBlock, ToolResultBlock, ToolResultState

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


class WellFormedRequests(MiddlewareBase):
    """Before each model call, make sure every tool call in the request has valid arguments."""

    async def on_model_call(self, agent: Any, input_kwargs: dict, next_handler: Any) -> Any:
        """Send the messages with repaired tool-call arguments."""
        messages = well_formed_tool_calls(input_kwargs["messages"])
        return await next_handler(**{**input_kwargs, "messages": messages})
