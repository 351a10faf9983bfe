"""remecli's own middleware interface: behaviour hooked into the agent loop, on remecli's types.

A middleware subclasses `Middleware` and overrides only the hooks it needs; the loop runs the
hooks of its middlewares in the order given (around the model call: the first is outermost).
The hooks, and when the loop runs them:

- `reply_started` / `reply_ended`: at the start and at the end of each reply (`ReplyEnd` says
  how it ended: with a reason, stopped by a cancel or an error, or parked).
- `system_prompt`: the system prompt of each model call (each middleware's output is the
  next one's input).
- `before_step`: before each reasoning step, to keep the context within the window. When a
  middleware has this hook the runtime's own context compression never runs.
- `model_call`: around each model call; it may send other messages (`call(messages)`) or call
  again after a failure. The answer is the runtime's own object, passed back unchanged.
- `check_permission`: decides whether a tool call may run (`decide()` asks the next one).

Hooks see the loop through `LoopState` (the context as `Message`s, the reply in flight, the
conversation's id). `remecli.llm.agentscope_middleware` implements it over agentscope's agent and
wraps each middleware for agentscope; nothing outside `remecli/llm/` sees that agent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from remecli.llm.message import Message, Part

Verdict = Literal["allow", "deny", "ask"]


@dataclass(frozen=True)
class ToolUse:
    """A tool call about to run: its tool, the parsed arguments, and whether the tool only
    reads."""

    call_id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    read_only: bool = False


@dataclass(frozen=True)
class Permission:
    """A decision on a `ToolUse`: allow, deny or ask (undecided), and why (the model reads
    a denial's `message`)."""

    verdict: Verdict
    message: str = ""


@dataclass(frozen=True)
class ReplyEnd:
    """How a reply ended: `reason` as the loop reported it ("completed", "exceed_max_iters",
    "interrupted", …; None when it reported no end: stopped or parked), and `stopped` when a
    cancel or an error cut it (nothing after it ran)."""

    reason: str | None
    stopped: bool
    input_ids: frozenset[str] = frozenset()  # the messages this reply answers

    @property
    def finished(self) -> bool:
        """True when the loop reported the reply ended normally (completed, or out of steps),
        even if a cancel came after that report."""
        return self.reason in ("completed", "exceed_max_iters")


class StateHolder(Protocol):
    """What holds the loop's saved state (the memory conversation binds to it)."""

    @property
    def state(self) -> object:
        """The runtime's state object (`remecli.llm.conversation_state.live_state` reads it)."""
        ...


class LoopState(Protocol):
    """What a hook sees of the loop it runs in."""

    @property
    def session_id(self) -> str:
        """The conversation's id."""
        ...

    @property
    def reply_id(self) -> str | None:
        """The id of the reply being written (its message in the context), if any."""
        ...

    @property
    def summary(self) -> str:
        """The checkpoint sent before the context ("" when none)."""
        ...

    @property
    def holder(self) -> StateHolder:
        """The saved state's holder, for the memory conversation that rewrites the context."""
        ...

    def context(self) -> list[Message]:
        """The conversation's messages as the next model call sends them (after the prompt
        and the checkpoint)."""
        ...

    def unfinished(self) -> set[str]:
        """Ids of the context's replies that never reached their end."""
        ...

    def mark_unfinished(self, message_ids: Iterable[str]) -> None:
        """Flag these replies as never finished (the flag is saved with the state)."""
        ...

    def add_parts(self, message_id: str, parts: Sequence[Part]) -> None:
        """Append `parts` to the context's message `message_id`."""
        ...

    def remove(self, message_id: str) -> None:
        """Take message `message_id` out of the context."""
        ...

    async def system_prompt(self) -> str:
        """The system prompt the next model call gets."""
        ...

    async def tool_schemas(self) -> list[dict[str, Any]]:
        """The tools' JSON schemas the next model call offers."""
        ...


CallModel = Callable[[Sequence[Message]], Awaitable[object]]
Decide = Callable[[], Awaitable[Permission]]


class Middleware:
    """Base of remecli's middlewares: every hook passes through until overridden (see the
    module docstring for when each runs)."""

    async def reply_started(self, loop: LoopState) -> None:
        """At the start of each reply."""

    async def reply_ended(self, loop: LoopState, end: ReplyEnd) -> None:
        """At the end of each reply, also one a cancel or an error stopped."""

    async def system_prompt(self, loop: LoopState, prompt: str) -> str:
        """The system prompt this middleware makes of `prompt`."""
        return prompt

    async def before_step(self, loop: LoopState) -> None:
        """Before each reasoning step (its presence turns the runtime's compression off)."""

    async def model_call(self, loop: LoopState, messages: list[Message], call: CallModel) -> object:
        """Around each model call: `call(messages)` sends them on."""
        return await call(messages)

    async def check_permission(self, loop: LoopState, use: ToolUse, decide: Decide) -> Permission:
        """Whether `use` may run; `decide()` is the next middleware's (or the runtime's) say."""
        return await decide()

    def overrides(self, hook: str) -> bool:
        """True when this middleware's class overrides `hook` (only those hooks are wired)."""
        return getattr(type(self), hook) is not getattr(Middleware, hook)
