"""Turn the agent loop's events into remecli's core events (one reply at a time)."""

from __future__ import annotations

from collections.abc import Iterator

from remecli.agent import events as ev
from remecli.llm import agent_loop as le


class EventTranslator:
    """Stateful mapping from `remecli.llm.agent_loop` events to `CoreEvent`s for one reply."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.usage = {"input_tokens": 0, "output_tokens": 0}
        self.finished_reason: str | None = None

    @property
    def interrupted_or_unfinished(self) -> bool:
        """True unless the reply ended normally (then the context middleware saved it)."""
        return self.finished_reason not in ("completed", "exceed_max_iters")

    def translate(self, event: le.LoopEvent) -> Iterator[ev.CoreEvent]:
        """Yield the core events for one loop event."""
        if isinstance(event, le.TextDelta):
            self.text.append(event.text)
            yield event  # the loop's text and tool-call events are core events as they are
        elif isinstance(event, (le.ThinkingDelta, le.ToolCallStarted, le.ToolCallReady)):
            yield event
        elif isinstance(event, le.ToolOutputDelta):
            yield ev.ToolOutput(event.call_id, event.text)
        elif isinstance(event, le.ToolCallFinished):
            yield event
        elif isinstance(event, le.Usage):
            self.usage["input_tokens"] += event.input_tokens
            self.usage["output_tokens"] += event.output_tokens
            yield event
        elif isinstance(event, le.ReplyFinished) and event.ended:
            self.finished_reason = event.reason
            yield ev.ReplyFinished(event.reason or "", "".join(self.text), dict(self.usage))
