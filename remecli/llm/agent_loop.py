"""The agent loop as remecli sees it: one `run(messages, tools)` that streams events.

As simonw/llm has one `execute`, every agent in remecli (the assistant, the summarizer, dream)
is driven through this interface; the implementation over agentscope's ReAct agent lives in
`remecli.llm.agentscope_adapter` (`build_agent_loop` is the one factory).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias

from remecli.llm.message import Message
from remecli.llm.tool_spec import ToolSpec


@dataclass(frozen=True)
class TextDelta:
    """A piece of the answer's text."""

    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    """A piece of the model's reasoning."""

    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    """The model began a tool call (its arguments follow)."""

    call_id: str
    name: str


@dataclass(frozen=True)
class ToolCallReady:
    """The model finished writing a tool call; `arguments` is the JSON text it wrote."""

    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolOutputDelta:
    """A piece of a running tool's output."""

    call_id: str
    text: str


@dataclass(frozen=True)
class ToolCallFinished:
    """A tool call ended: its state ("success", "error", …), whole output and duration."""

    call_id: str
    name: str
    state: str
    output: str
    duration: float


@dataclass(frozen=True)
class Usage:
    """Tokens one model call took and gave."""

    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class ReplyFinished:
    """The loop stopped; `message` is its final reply. `ended` is False when it stopped
    without ending the reply (parked waiting for outside input); `reason` then is None."""

    message: Message
    reason: str | None
    ended: bool = True


LoopEvent: TypeAlias = (
    TextDelta
    | ThinkingDelta
    | ToolCallStarted
    | ToolCallReady
    | ToolOutputDelta
    | ToolCallFinished
    | Usage
    | ReplyFinished
)


class AgentLoop(Protocol):
    """A model that answers with tool calls until it is done (see the module docstring)."""

    def run(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None
    ) -> AsyncIterator[LoopEvent]:
        """Add `messages` to the conversation and stream the reply's events, ending with one
        `ReplyFinished`. `tools` replaces the tools offered for this run (None: the loop's own).

        The provider's exception propagates (`remecli.llm.errors.classify` phrases it);
        cancelling the consumer interrupts the reply.
        """
        ...


async def final_reply(events: AsyncIterator[LoopEvent]) -> ReplyFinished:
    """Run a loop's events to the end; its `ReplyFinished`."""
    finished: ReplyFinished | None = None
    async for event in events:
        if isinstance(event, ReplyFinished):
            finished = event
    if finished is None:
        raise RuntimeError("the agent loop ended without a reply")
    return finished
