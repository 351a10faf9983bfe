"""The agent loop as remecli sees it: one `run(messages, tools)` that streams events.

As simonw/llm has one `execute`, every agent in remecli (the assistant, the summarizer, dream)
is driven through this interface and built by its one factory, `build_agent_loop`; the
implementation over agentscope's ReAct agent lives in `remecli.llm.agentscope_adapter`,
imported only when a loop is built (the UI paints before agentscope loads).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeAlias

from remecli.llm.message import Message
from remecli.llm.tool_spec import ToolSpec

if TYPE_CHECKING:
    from remecli.llm.agentscope_adapter import AgentscopeLoop, Middleware, RuntimeTool, State
    from remecli.llm.chat_model import ChatModel


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


def build_agent_loop(
    model: ChatModel,
    *,
    name: str,
    system_prompt: str,
    tools: Sequence[RuntimeTool],
    max_retries: int,
    max_iters: int | None = None,
    before_retry: Sequence[Middleware] = (),
    after_retry: Sequence[Middleware] = (),
    state: State | None = None,
) -> AgentscopeLoop:
    """The agent loop every remecli agent runs on (see
    `remecli.llm.agentscope_adapter.agentscope_loop`, which builds it)."""
    from remecli.llm.agentscope_adapter import agentscope_loop

    return agentscope_loop(
        model,
        name=name,
        system_prompt=system_prompt,
        tools=tools,
        max_retries=max_retries,
        max_iters=max_iters,
        before_retry=before_retry,
        after_retry=after_retry,
        state=state,
    )
