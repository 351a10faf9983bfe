"""The one place remecli's own types meet agentscope's: messages, tools, the agent loop.

`to_msg`/`from_msg` convert messages, `runtime_tool` a `ToolSpec`, and `AgentscopeLoop`
drives agentscope's ReAct agent behind the `AgentLoop` interface, turning its events into
remecli's (`remecli.llm.agent_loop`). `agentscope_loop` builds it for the one factory,
`remecli.llm.agent_loop.build_agent_loop`, that every agent in remecli is built by.

Behaviour that hooks into the loop is written on remecli's own interface
(`remecli.llm.middleware`); `remecli.llm.agentscope_middleware` wraps it for agentscope.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from agentscope import event as ase
from agentscope.agent import Agent, ContextConfig, InjectionConfig, ReActConfig
from agentscope.message import (
    Base64Source,
    DataBlock,
    Msg,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultState,
)
from agentscope.middleware import MiddlewareBase
from agentscope.permission import PermissionBehavior, PermissionDecision
from agentscope.tool import FunctionTool, Toolkit

from remecli.llm import agent_loop as loop_events
from remecli.llm.agentscope_middleware import AgentView, runtime_middlewares
from remecli.llm.agentscope_state import agent_state
from remecli.llm.blocks import output_text
from remecli.llm.conversation_state import ConversationState
from remecli.llm.function_tool import CheckedFunctionTool
from remecli.llm.message import (
    Attachment,
    Message,
    Part,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    ToolState,
)
from remecli.llm.middleware import LoopState
from remecli.llm.middleware import Middleware as OwnMiddleware
from remecli.llm.retry import RetryMiddleware
from remecli.llm.tool_spec import ToolSpec

if TYPE_CHECKING:
    from remecli.llm.chat_model import ChatModel

RuntimeTool = ToolSpec | FunctionTool  # a tool not yet described by a ToolSpec passes as is
Middleware = OwnMiddleware | MiddlewareBase  # remecli's own, or the retry (in llm/ only)
State = ConversationState  # a saved conversation the assistant resumes
_STATES: frozenset[str] = frozenset(state.value for state in ToolResultState)


# ------------------------------------------------------------------ messages
Block = TextBlock | ThinkingBlock | DataBlock | ToolCallBlock | ToolResultBlock


def to_block(part: Part) -> Block:
    """agentscope's content block for one part of a message."""
    if isinstance(part, Text):
        return TextBlock(text=part.text)
    if isinstance(part, Thinking):
        return ThinkingBlock(thinking=part.text)
    if isinstance(part, Attachment):
        source = Base64Source(data=part.data, media_type=part.media_type)
        return DataBlock(source=source, name=part.name)
    if isinstance(part, ToolCall):
        return ToolCallBlock(id=part.id, name=part.name, input=part.arguments)
    return ToolResultBlock(
        id=part.call_id, name=part.name, output=part.output, state=ToolResultState(part.state)
    )


def to_msg(message: Message) -> Msg:
    """agentscope's `Msg` saying what `message` says (same id)."""
    return Msg(
        name=message.name or message.role,
        role=message.role,
        content=[to_block(part) for part in message.parts],
        id=message.id,
    )


def from_block(block: object) -> Part | None:
    """Our part for one agentscope block; None for one we do not model (hints, URL data)."""
    if isinstance(block, TextBlock):
        return Text(block.text)
    if isinstance(block, ThinkingBlock):
        return Thinking(block.thinking)
    if isinstance(block, DataBlock) and isinstance(block.source, Base64Source):
        return Attachment(block.source.media_type, block.source.data, block.name)
    if isinstance(block, ToolCallBlock):
        return ToolCall(block.id, block.name, block.input or "{}")
    if isinstance(block, ToolResultBlock):
        state = str(getattr(block.state, "value", block.state))
        known = cast(ToolState, state if state in _STATES else "success")
        return ToolResult(block.id, block.name, output_text(block.output), known)
    return None


def from_msg(msg: Msg) -> Message:
    """Our `Message` for agentscope's `msg` (same id; blocks we do not model are left out)."""
    parts = tuple(part for part in map(from_block, msg.content) if part is not None)
    reason = msg.finished_reason
    return Message(
        role=msg.role,
        parts=parts,
        name=msg.name,
        id=msg.id,
        finished_reason=None if reason is None else str(getattr(reason, "value", reason)),
    )


# ------------------------------------------------------------------ tools
def runtime_tool(tool: RuntimeTool) -> FunctionTool:
    """The runtime's tool for a `ToolSpec` (checked arguments, results never empty)."""
    if isinstance(tool, FunctionTool):
        return tool
    options: dict[str, Any] = {}
    if tool.allowed is not None:
        options["permission"] = PermissionDecision(PermissionBehavior.ALLOW, tool.allowed)
    return CheckedFunctionTool(
        tool.function,
        name=tool.name,
        description=tool.description,
        input_schema=dict(tool.parameters),
        is_read_only=tool.read_only,
        is_concurrency_safe=tool.concurrency_safe,
        **options,
    )


class NoCompression(OwnMiddleware):
    """Keeps agentscope's own context compression off (a confined run's context is bounded)."""

    async def before_step(self, loop: LoopState) -> None:
        """Nothing is compressed or truncated (having the hook turns the runtime's off)."""
        return None


# ------------------------------------------------------------------ the loop
class AgentscopeLoop:
    """`AgentLoop` over agentscope's ReAct agent (`agent`, for the middlewares bound to it)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    @property
    def state(self) -> LoopState:
        """The conversation as middlewares see it (to repair it after a failed reply)."""
        return AgentView(self.agent)

    def use_model(self, model: ChatModel) -> None:
        """Answer with `model` from the next model call on."""
        self.agent.model = model.agent_model()

    async def run(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None
    ) -> AsyncIterator[loop_events.LoopEvent]:
        """See `AgentLoop.run`."""
        if tools is not None:
            self.agent.toolkit = Toolkit(tools=[runtime_tool(tool) for tool in tools])
        inputs = [to_msg(message) for message in messages]
        translate = _Translation()
        stream = self.agent.reply_stream(inputs, yield_final_msg=True)
        try:
            async for item in stream:
                for event in translate.event(item):
                    yield event
        finally:
            await stream.aclose()


class _Translation:
    """agentscope's events of one reply as ours (a tool call's name, arguments, timing)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.arguments: dict[str, list[str]] = {}
        self.output: dict[str, list[str]] = {}
        self.started: dict[str, float] = {}
        self.reason: str | None = None
        self.ended = False

    def event(self, item: object) -> list[loop_events.LoopEvent]:
        """Our events for one item of agentscope's reply stream."""
        if isinstance(item, Msg):
            message = from_msg(item)
            return [loop_events.ReplyFinished(message, self.reason, self.ended)]
        if isinstance(item, ase.TextBlockDeltaEvent):
            return [loop_events.TextDelta(item.delta)]
        if isinstance(item, ase.ThinkingBlockDeltaEvent):
            return [loop_events.ThinkingDelta(item.delta)]
        if isinstance(item, ase.ToolCallStartEvent):
            self.names[item.tool_call_id] = item.tool_call_name
            self.arguments[item.tool_call_id] = []
            return [loop_events.ToolCallStarted(item.tool_call_id, item.tool_call_name)]
        if isinstance(item, ase.ToolCallDeltaEvent):
            self.arguments.setdefault(item.tool_call_id, []).append(item.delta)
            return []
        if isinstance(item, ase.ToolCallEndEvent):
            call = item.tool_call_id
            arguments = "".join(self.arguments.get(call, []))
            return [loop_events.ToolCallReady(call, self.names.get(call, "?"), arguments)]
        if isinstance(item, ase.ToolResultStartEvent):
            self.names.setdefault(item.tool_call_id, item.tool_call_name)
            self.started[item.tool_call_id] = time.monotonic()
            self.output[item.tool_call_id] = []
            return []
        if isinstance(item, ase.ToolResultTextDeltaEvent):
            self.output.setdefault(item.tool_call_id, []).append(item.delta)
            return [loop_events.ToolOutputDelta(item.tool_call_id, item.delta)]
        if isinstance(item, ase.ToolResultEndEvent):
            call = item.tool_call_id
            started = self.started.pop(call, time.monotonic())
            return [
                loop_events.ToolCallFinished(
                    call,
                    self.names.get(call, "?"),
                    str(getattr(item.state, "value", item.state)),
                    "".join(self.output.pop(call, [])),
                    time.monotonic() - started,
                )
            ]
        if isinstance(item, ase.ModelCallEndEvent):
            return [loop_events.Usage(item.input_tokens, item.output_tokens)]
        if isinstance(item, ase.ReplyEndEvent):
            self.reason = str(getattr(item.finished_reason, "value", item.finished_reason))
            self.ended = True
        return []


def agent_options(*, confined: bool) -> dict[str, Any]:
    """The `Agent(...)` context options: tool results never truncated by agentscope, no
    runtime state injected; unless `confined`, its compression tool off (the assistant's
    context middleware owns the context)."""
    if confined:
        context = ContextConfig(tool_result_limit=10**9)
    else:
        context = ContextConfig(tool_result_limit=10**9, compression_tool_enabled=False)
    return {
        "context_config": context,
        "injection_config": InjectionConfig(inject_runtime_state=False),
    }


def agentscope_loop(
    model: ChatModel,
    *,
    name: str,
    system_prompt: str,
    tools: Sequence[RuntimeTool],
    max_retries: int,
    max_iters: int | None = None,
    before_retry: Sequence[Middleware] = (),
    after_retry: Sequence[Middleware] = (),
    state: ConversationState | None = None,
) -> AgentscopeLoop:
    """The agent loop every remecli agent runs on.

    With `max_iters`, a confined run (the summarizer, dream): it stops after that many steps,
    never compresses its context, and a cancel raises. Without, the assistant's loop: its
    context middleware (in `before_retry`) owns the context, agentscope's compression tool is
    off. Model calls are retried `max_retries` times between `before_retry` and `after_retry`;
    tool results are never truncated by agentscope, and no runtime state is injected.
    """
    middlewares: list[Middleware] = [*before_retry, RetryMiddleware(max_retries), *after_retry]
    options = agent_options(confined=max_iters is not None)
    if max_iters is not None:
        middlewares.append(NoCompression())
        options["react_config"] = ReActConfig(
            max_iters=max_iters, interruption_raise_cancelled_error=True
        )
    agent = Agent(
        name=name,
        system_prompt=system_prompt,
        model=model.agent_model(),
        toolkit=Toolkit(tools=[runtime_tool(tool) for tool in tools]),
        middlewares=runtime_middlewares(middlewares),
        state=None if state is None else agent_state(state),
        **options,
    )
    return AgentscopeLoop(agent)


if TYPE_CHECKING:  # mypy checks that the adapter's loop is an AgentLoop
    _IS_AN_AGENT_LOOP: type[loop_events.AgentLoop] = AgentscopeLoop
