"""A fake summarizer that writes the daily file the runtime asked for (`{daily_path}` in its
prompt), so a test sees which day a recorded conversation was filed under; it keeps every
transcript it was shown (`seen`) so a test can check what reached the model."""

from __future__ import annotations

import json
import re

from tests.fakes.messages import content_text
from tests.fakes.turns import ToolCall, ToolCallsTurn

_DAILY = re.compile(r"`(memory/\d{4}-\d{2}-\d{2}\.md)`")


class DatedSummarizer:
    """Callable handler for `fake_llm.set_fallback`."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.days: list[str] = []

    def __call__(self, body: dict) -> ToolCallsTurn | str:
        system = content_text(body["messages"][0])
        found = _DAILY.search(system)
        if not found:
            return "ok"
        daily = found.group(1)
        transcript = content_text(next(m for m in body["messages"] if m["role"] == "user"))
        tools = [m for m in body["messages"] if m["role"] == "tool"]
        if not tools:
            self.seen.append(transcript)
            return ToolCallsTurn([ToolCall("read", json.dumps({"path": daily}))])
        if len(tools) == 1:
            said = re.findall(r"^\[\d\d:\d\d\] user: (.+)$", transcript, flags=re.M)
            day = daily.removeprefix("memory/").removesuffix(".md")
            self.days.append(day)
            content = f"# {day}\n\n" + "".join(f"- said: {s.strip()}\n" for s in said)
            return ToolCallsTurn(
                [ToolCall("write", json.dumps({"path": daily, "content": content}))]
            )
        return "Saved."
