"""Keep the agent's context well-formed after a failed model call."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace

from remecli.llm.message import Message, Text, ToolCall, ToolResult
from remecli.llm.middleware import CallModel, LoopState, Middleware, ReplyEnd

FAILED_NOTE = (
    "<system-reminder>This tool call was not executed: the reply failed.</system-reminder>"
)
INTERRUPTED_MARK = "[interrupted]"  # the end of a reply the user stopped (or that failed)
NO_REPLY_MARK = "[interrupted: no reply]"  # between two user turns whose first got no answer


def repair_after_error(loop: LoopState, user_msg_id: str) -> bool:
    """Make the loop's context safe to send again after an error in the reply to `user_msg_id`.

    If the reply produced nothing, the user message is removed (it stays in the transcript and
    on screen; the caller tells the user it was not answered) and True is returned. Otherwise
    the partial reply is kept and every tool call without a result gets an error result, so no
    provider rejects the next request for an orphan tool call.
    """
    context = loop.context()
    index = next((i for i, m in enumerate(context) if m.id == user_msg_id), None)
    if index is None:
        return False
    if index == len(context) - 1:
        loop.remove(user_msg_id)
        return True
    for msg in context[index + 1 :]:
        if msg.role != "assistant":
            continue
        answered = {result.call_id for result in msg.tool_results}
        missing = [
            ToolResult(call_id=call.id, name=call.name, output=FAILED_NOTE, state="error")
            for call in msg.tool_calls
            if call.id not in answered
        ]
        if missing:
            loop.add_parts(msg.id, missing)
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


def well_formed_tool_calls(messages: list[Message]) -> list[Message]:
    """`messages` with every tool call's arguments valid JSON (new messages only where needed)."""
    out = []
    for msg in messages:
        if any(not _valid_arguments(call.arguments) for call in msg.tool_calls):
            parts = tuple(
                replace(part, arguments=repaired_arguments(part.arguments))
                if isinstance(part, ToolCall) and not _valid_arguments(part.arguments)
                else part
                for part in msg.parts
            )
            msg = replace(msg, parts=parts)
        out.append(msg)
    return out


def mark_interrupted(
    messages: list[Message], context_ids: set[str], reply_id: str | None, unfinished: set[str]
) -> list[Message]:
    """`messages` as the model should read them after an interruption (new where changed).

    An assistant reply of the context that never finished (in `unfinished`: stopped by the
    user, or cut by an error) ends with `[interrupted]`, so the model does not take it for a
    complete answer; a user turn of the context that got no reply at all is followed by a short
    assistant note, so the request never holds two user turns in a row. The reply in flight
    (`reply_id`) and messages outside the context (system prompt, checkpoint) are left as they
    are.
    """
    out: list[Message] = []
    for msg in messages:
        in_context = msg.id in context_ids
        if (
            in_context
            and msg.role == "user"
            and out
            and out[-1].role == "user"
            and out[-1].id in context_ids
        ):
            out.append(Message("assistant", (Text(NO_REPLY_MARK),), name="assistant"))
        if (
            in_context
            and msg.role == "assistant"
            and msg.id != reply_id
            and msg.id in unfinished
            and not _ends_with_mark(msg)
        ):
            msg = replace(msg, parts=(*msg.parts, Text(INTERRUPTED_MARK)))
        out.append(msg)
    return out


def _ends_with_mark(msg: Message) -> bool:
    texts = [part.text for part in msg.parts if isinstance(part, Text)]
    return bool(texts) and texts[-1].rstrip().endswith(INTERRUPTED_MARK)


def unfinished_reply(context: list[Message], input_ids: Iterable[str]) -> list[str]:
    """Ids of the assistant messages of `context` answering the messages `input_ids`."""
    ids = set(input_ids)
    index = next((i for i, m in enumerate(context) if m.id in ids), None)
    if index is None:
        return []
    return [msg.id for msg in context[index + 1 :] if msg.role == "assistant"]


class WellFormedRequests(Middleware):
    """Before each model call: valid tool-call arguments, interrupted replies marked, never
    two user turns in a row. Around each reply: a reply that does not end normally
    (cancelled, failed) is flagged so later requests show it as interrupted."""

    async def reply_ended(self, loop: LoopState, end: ReplyEnd) -> None:
        """Flag the reply unfinished unless the loop reported it completed."""
        if not end.finished:
            loop.mark_unfinished(unfinished_reply(loop.context(), end.input_ids))

    async def model_call(self, loop: LoopState, messages: list[Message], call: CallModel) -> object:
        """Send the repaired messages."""
        context_ids = {m.id for m in loop.context()}
        messages = well_formed_tool_calls(messages)
        messages = mark_interrupted(messages, context_ids, loop.reply_id, loop.unfinished())
        return await call(messages)
