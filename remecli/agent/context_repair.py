"""Keep the agent's context well-formed after a failed model call."""

from __future__ import annotations

from typing import Any

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
