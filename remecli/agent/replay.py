"""A saved conversation as core events, so any front-end can show a resumed session."""

from __future__ import annotations

from collections.abc import Sequence

from remecli.agent import events as ev
from remecli.agent.model_notes import without_notes
from remecli.llm.message import Message, Text, ToolCall, ToolResult
from remecli.tools.mentions import without_attachments


def replay_events(summary: str, context: Sequence[Message]) -> list[ev.CoreEvent]:
    """User turns, answers and tool calls of a conversation's `context` (after its checkpoint
    `summary`, "" when none)."""
    events: list[ev.CoreEvent] = []
    if summary:
        events.append(
            ev.Notice("Resumed: earlier turns are summarized in the checkpoint (see /history).")
        )
    for msg in context:
        if msg.role == "user":
            events.append(ev.UserMessage(without_notes(without_attachments(msg.text))))
            continue
        names: dict[str, str] = {}
        for part in msg.parts:
            if isinstance(part, Text):
                events.append(ev.TextDelta(part.text))
            elif isinstance(part, ToolCall):
                names[part.id] = part.name
                events.append(ev.ToolCallStarted(part.id, part.name))
                events.append(ev.ToolCallReady(part.id, part.name, part.arguments))
            elif isinstance(part, ToolResult):
                name = names.get(part.call_id, part.name)
                events.append(ev.ToolFinished(part.call_id, name, part.state, part.output, 0.0))
        events.append(ev.ReplyFinished("completed"))
    return events
