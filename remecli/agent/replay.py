"""A saved conversation as core events, so any front-end can show a resumed session."""

from __future__ import annotations

from typing import Any

from remecli.agent import events as ev
from remecli.agent.model_notes import without_notes
from remecli.llm.blocks import output_text
from remecli.tools.mentions import without_attachments


def replay_events(state: Any) -> list[ev.CoreEvent]:
    """User turns, answers and tool calls of `state.context` (an agentscope AgentState)."""
    events: list[ev.CoreEvent] = []
    if state.summary:
        events.append(
            ev.Notice("Resumed: earlier turns are summarized in the checkpoint (see /history).")
        )
    for msg in state.context:
        if msg.role == "user":
            text = "\n".join(b.text for b in msg.content if getattr(b, "type", "") == "text")
            typed = without_notes(without_attachments(text))
            events.append(ev.UserMessage(typed))
            continue
        names: dict[str, str] = {}
        for block in msg.content:
            kind = getattr(block, "type", "")
            if kind == "text":
                events.append(ev.TextDelta(block.text))
            elif kind == "tool_call":
                names[block.id] = block.name
                events.append(ev.ToolCallStarted(block.id, block.name))
                events.append(ev.ToolCallReady(block.id, block.name, block.input))
            elif kind == "tool_result":
                result_state = str(getattr(block.state, "value", block.state))
                events.append(
                    ev.ToolFinished(
                        block.id,
                        names.get(block.id, block.name),
                        result_state,
                        output_text(block.output),
                        0.0,
                    )
                )
        events.append(ev.ReplyFinished("completed"))
    return events
