"""A fake model that plays both the assistant and the memory summarizer.

Requests from the summarizer (its system prompt keeps "the daily memory log") get a scripted
read → write → done sequence that writes every user line of the conversation to the daily
file; the main agent gets plain answers. So a test sees real files written by the real
summarizer agent through real HTTP. Install with `fake_llm.set_fallback(MemoryAwareModel())`
(the `memory_model` fixture does).
"""

from __future__ import annotations

import datetime as dt
import json
import re

from tests.fakes.messages import content_text
from tests.fakes.turns import ToolCall, ToolCallsTurn


def is_summarizer(body: dict) -> bool:
    return "daily memory log" in content_text(body["messages"][0])


class MemoryAwareModel:
    """Callable handler for `fake_llm.set_fallback`."""

    def __init__(self, answer: str = "ok") -> None:
        self.answer = answer
        self.summaries = 0

    def __call__(self, body: dict):
        from tests.fakes.card_model import card_turn, is_card_summarizer

        if is_card_summarizer(body):  # the card layout (summaries given a session_id)
            return card_turn(body)
        if not is_summarizer(body):
            return self.answer
        daily = f"memory/{dt.date.today().isoformat()}.md"
        tools = [m for m in body["messages"] if m["role"] == "tool"]
        if not tools:
            return ToolCallsTurn([ToolCall("read", json.dumps({"path": daily}))])
        if len(tools) == 1:
            transcript = content_text(next(m for m in body["messages"] if m["role"] == "user"))
            said = re.findall(r"^\[\d\d:\d\d\] user: (.+)$", transcript, flags=re.M)
            content = f"# {dt.date.today().isoformat()}\n\n" + "".join(
                f"- said: {s.strip()}\n" for s in said
            )
            self.summaries += 1
            return ToolCallsTurn(
                [ToolCall("write", json.dumps({"path": daily, "content": content}))]
            )
        return "Saved."
