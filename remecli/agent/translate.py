"""Turn agentscope's event stream into remecli's core events (one reply at a time)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from remecli.agent import events as ev


class EventTranslator:
    """Stateful mapping from agentscope events to `CoreEvent`s for one reply."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._args: dict[str, list[str]] = {}
        self._output: dict[str, list[str]] = {}
        self._started: dict[str, float] = {}
        self.text: list[str] = []
        self.usage = {"input_tokens": 0, "output_tokens": 0}
        self.finished_reason: str | None = None

    @property
    def interrupted_or_unfinished(self) -> bool:
        """True unless the reply ended normally (then the context middleware saved it)."""
        return self.finished_reason not in ("completed", "exceed_max_iters")

    def translate(self, event: Any) -> Iterator[ev.CoreEvent]:
        """Yield the core events for one agentscope event (none for the ones we ignore)."""
        from remecli.llm.runtime.agents import events as ase

        if isinstance(event, ase.TextBlockDeltaEvent):
            self.text.append(event.delta)
            yield ev.TextDelta(event.delta)
        elif isinstance(event, ase.ThinkingBlockDeltaEvent):
            yield ev.ThinkingDelta(event.delta)
        elif isinstance(event, ase.ToolCallStartEvent):
            self._names[event.tool_call_id] = event.tool_call_name
            self._args[event.tool_call_id] = []
            yield ev.ToolCallStarted(event.tool_call_id, event.tool_call_name)
        elif isinstance(event, ase.ToolCallDeltaEvent):
            self._args.setdefault(event.tool_call_id, []).append(event.delta)
        elif isinstance(event, ase.ToolCallEndEvent):
            call_id = event.tool_call_id
            yield ev.ToolCallReady(
                call_id, self._names.get(call_id, "?"), "".join(self._args.get(call_id, []))
            )
        elif isinstance(event, ase.ToolResultStartEvent):
            self._names.setdefault(event.tool_call_id, event.tool_call_name)
            self._started[event.tool_call_id] = time.monotonic()
            self._output[event.tool_call_id] = []
        elif isinstance(event, ase.ToolResultTextDeltaEvent):
            self._output.setdefault(event.tool_call_id, []).append(event.delta)
            yield ev.ToolOutput(event.tool_call_id, event.delta)
        elif isinstance(event, ase.ToolResultEndEvent):
            call_id = event.tool_call_id
            started = self._started.pop(call_id, time.monotonic())
            yield ev.ToolFinished(
                call_id,
                self._names.get(call_id, "?"),
                str(getattr(event.state, "value", event.state)),
                "".join(self._output.pop(call_id, [])),
                time.monotonic() - started,
            )
        elif isinstance(event, ase.ModelCallEndEvent):
            self.usage["input_tokens"] += event.input_tokens
            self.usage["output_tokens"] += event.output_tokens
            yield ev.UsageReport(event.input_tokens, event.output_tokens)
        elif isinstance(event, ase.ReplyEndEvent):
            reason = str(getattr(event.finished_reason, "value", event.finished_reason))
            self.finished_reason = reason
            yield ev.ReplyFinished(reason, "".join(self.text), dict(self.usage))
