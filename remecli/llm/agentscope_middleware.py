"""remecli's middlewares (`remecli.llm.middleware`) run inside agentscope's agent.

`runtime_middlewares` wraps each remecli `Middleware` into one agentscope middleware per hook it
overrides (agentscope runs a hook only on middlewares that implement it, in their order, so the
order of remecli's middlewares is kept hook by hook). `AgentView` is the `LoopState` the hooks
see: agentscope's agent state read and changed in remecli's types.

Messages cross the seam both ways without loss: a message a hook passes on unchanged is sent as
the very `Msg` it came from; a changed one is a copy of that `Msg` in which each part the hook
kept is its original block (an image in a tool result, a thinking block's signature stay) and
blocks remecli does not model (hints) stay where they were; only new parts are converted.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agentscope.event import ReplyEndEvent
from agentscope.message import Msg
from agentscope.middleware import MiddlewareBase
from agentscope.permission import PermissionBehavior, PermissionDecision

from remecli.llm.message import Message, Part
from remecli.llm.middleware import (
    LoopState,
    Middleware,
    Permission,
    ReplyEnd,
    StateHolder,
    ToolUse,
    Verdict,
)

UNFINISHED_KEY = "remecli_unfinished"  # a reply's metadata flag (saved with the state)
_VERDICTS: dict[PermissionBehavior, Verdict] = {
    PermissionBehavior.ALLOW: "allow",
    PermissionBehavior.DENY: "deny",
    PermissionBehavior.ASK: "ask",
    PermissionBehavior.PASSTHROUGH: "ask",
}


class Origins:
    """Which agentscope `Msg` (and which block of it) each converted message came from."""

    def __init__(self) -> None:
        self._by_object: dict[int, tuple[Message, Msg]] = {}
        self._by_id: dict[str, tuple[Msg, dict[int, tuple[Part, object]]]] = {}

    def convert(self, msgs: Iterable[Msg]) -> list[Message]:
        """Our messages for `msgs`, remembered so `back` can return the originals."""
        from remecli.llm.agentscope_adapter import from_block, from_msg

        out = []
        for msg in msgs:
            pairs = [(block, from_block(block)) for block in msg.content]
            parts: dict[int, tuple[Part, object]] = {
                id(part): (part, block) for block, part in pairs if part is not None
            }
            message = replace(from_msg(msg), parts=tuple(part for part, _ in parts.values()))
            self._by_object[id(message)] = (message, msg)
            seen = self._by_id.get(msg.id)
            if seen is not None and seen[0] is msg:
                parts = {**seen[1], **parts}  # converted twice: parts of either map back
            self._by_id[msg.id] = (msg, parts)
            out.append(message)
        return out

    def back(self, messages: Iterable[Message]) -> list[Msg]:
        """agentscope's messages for `messages` (see the module docstring)."""
        return [self.back_one(message) for message in messages]

    def back_one(self, message: Message) -> Msg:
        """agentscope's `Msg` for one message: its original, a copy of it, or a new one."""
        from remecli.llm.agentscope_adapter import to_block, to_msg

        known = self._by_object.get(id(message))
        if known is not None and known[0] is message:
            return known[1]
        origin = self._by_id.get(message.id)
        if origin is None:
            return to_msg(message)
        msg, parts = origin
        kept = {id(part): block for part, block in parts.values()}
        modeled = {id(block) for block in kept.values()}
        new = iter(message.parts)
        content: list[Any] = []
        for block in msg.content:
            if id(block) not in modeled:
                content.append(block)  # a block we do not model stays where it was
                continue
            part = next(new, None)
            if part is not None:
                content.append(kept.get(id(part)) or to_block(part))
        content += [kept.get(id(part)) or to_block(part) for part in new]
        return msg.model_copy(update={"content": content})


class AgentView:
    """`LoopState` over agentscope's agent (`agent.state` holds the conversation)."""

    def __init__(self, agent: Any, origins: Origins | None = None) -> None:
        self.agent = agent
        self.origins = origins or Origins()

    @property
    def session_id(self) -> str:
        """See `LoopState.session_id`."""
        return str(self.agent.state.session_id)

    @property
    def reply_id(self) -> str | None:
        """See `LoopState.reply_id`."""
        return getattr(getattr(self.agent, "state", None), "reply_id", None)

    @property
    def summary(self) -> str:
        """See `LoopState.summary`."""
        return str(self.agent.state.summary or "")

    @property
    def holder(self) -> StateHolder:
        """See `LoopState.holder`: the agent itself."""
        holder: StateHolder = self.agent
        return holder

    def _msgs(self) -> list[Msg]:
        return list(getattr(getattr(self.agent, "state", None), "context", []))

    def context(self) -> list[Message]:
        """See `LoopState.context`."""
        return self.origins.convert(self._msgs())

    def unfinished(self) -> set[str]:
        """See `LoopState.unfinished`."""
        return {msg.id for msg in self._msgs() if msg.metadata.get(UNFINISHED_KEY)}

    def mark_unfinished(self, message_ids: Iterable[str]) -> None:
        """See `LoopState.mark_unfinished`."""
        ids = set(message_ids)
        for msg in self._msgs():
            if msg.id in ids:
                msg.metadata[UNFINISHED_KEY] = True

    def add_parts(self, message_id: str, parts: Sequence[Part]) -> None:
        """See `LoopState.add_parts`."""
        from remecli.llm.agentscope_adapter import to_block

        for msg in self._msgs():
            if msg.id == message_id:
                msg.content.extend(to_block(part) for part in parts)

    def remove(self, message_id: str) -> None:
        """See `LoopState.remove`."""
        context = self.agent.state.context
        context[:] = [msg for msg in context if msg.id != message_id]

    async def system_prompt(self) -> str:
        """See `LoopState.system_prompt`."""
        return str(await self.agent._get_system_prompt())

    async def tool_schemas(self) -> list[dict[str, Any]]:
        """See `LoopState.tool_schemas`."""
        groups = self.agent.state.tool_context.activated_groups
        return list(await self.agent.toolkit.get_tool_schemas(groups))


class _Hook(MiddlewareBase):
    """One hook of a remecli middleware, as agentscope calls it."""

    def __init__(self, middleware: Middleware) -> None:
        self.middleware = middleware

    async def get_middleware_key(self) -> str:
        """The wrapped middleware's name and the hook (keys saved middleware state)."""
        return f"{type(self.middleware).__name__}.{type(self).__name__}"


class _Reply(_Hook):
    async def on_reply(
        self, agent: Any, input_kwargs: dict[str, Any], next_handler: Callable[..., Any]
    ) -> AsyncGenerator[Any, None]:
        view = AgentView(agent)
        await self.middleware.reply_started(view)
        reason: str | None = None
        stopped = True
        try:
            async for item in next_handler(**input_kwargs):
                if isinstance(item, ReplyEndEvent):
                    reason = str(getattr(item.finished_reason, "value", item.finished_reason))
                yield item
            stopped = False
        finally:
            inputs = input_kwargs.get("inputs")
            items = inputs if isinstance(inputs, list) else [inputs]
            ids = frozenset(str(m.id) for m in items if isinstance(m, Msg))
            await self.middleware.reply_ended(view, ReplyEnd(reason, stopped, ids))


class _SystemPrompt(_Hook):
    async def on_system_prompt(self, agent: Any, current_prompt: str) -> str:
        return await self.middleware.system_prompt(AgentView(agent), current_prompt)


class _BeforeStep(_Hook):
    async def on_compress_context(
        self, agent: Any, input_kwargs: dict[str, Any], next_handler: Callable[..., Any]
    ) -> None:
        """Never calls `next_handler`: agentscope's own compression stays off."""
        await self.middleware.before_step(AgentView(agent))


class _ModelCall(_Hook):
    async def on_model_call(
        self, agent: Any, input_kwargs: dict[str, Any], next_handler: Callable[..., Any]
    ) -> Any:
        view = AgentView(agent)
        messages = view.origins.convert(input_kwargs["messages"])

        async def call(sent: Sequence[Message]) -> object:
            return await next_handler(**{**input_kwargs, "messages": view.origins.back(sent)})

        return await self.middleware.model_call(view, messages, call)


class _CheckPermission(_Hook):
    async def on_check_permission(
        self,
        agent: Any,
        input_kwargs: dict[str, Any],
        next_handler: Callable[..., Awaitable[PermissionDecision]],
    ) -> PermissionDecision:
        tool = input_kwargs["tool"]
        use = ToolUse(
            call_id=str(getattr(input_kwargs.get("tool_call"), "id", "")),
            name=tool.name,
            arguments=dict(input_kwargs.get("tool_input") or {}),
            read_only=bool(tool.is_read_only),
        )
        given: list[tuple[Permission, PermissionDecision]] = []

        async def decide() -> Permission:
            decision = await next_handler(**input_kwargs)
            permission = Permission(_VERDICTS[decision.behavior], decision.message)
            given.append((permission, decision))
            return permission

        permission = await self.middleware.check_permission(AgentView(agent), use, decide)
        for passed, decision in given:
            if passed is permission:
                return decision  # passed on unchanged: agentscope's own decision
        behavior = PermissionBehavior(permission.verdict)
        return PermissionDecision(behavior=behavior, message=permission.message)


_WRAPPERS: tuple[tuple[tuple[str, ...], type[_Hook]], ...] = (
    (("reply_started", "reply_ended"), _Reply),
    (("system_prompt",), _SystemPrompt),
    (("before_step",), _BeforeStep),
    (("model_call",), _ModelCall),
    (("check_permission",), _CheckPermission),
)


def runtime_middlewares(middlewares: Sequence[Middleware | MiddlewareBase]) -> list[MiddlewareBase]:
    """agentscope's middlewares for `middlewares`, in order (agentscope's own pass as they are)."""
    out: list[MiddlewareBase] = []
    for middleware in middlewares:
        if isinstance(middleware, MiddlewareBase):
            out.append(middleware)
            continue
        for hooks, wrapper in _WRAPPERS:
            if any(middleware.overrides(hook) for hook in hooks):
                out.append(wrapper(middleware))
    return out


if TYPE_CHECKING:  # mypy checks that the view is a LoopState
    _IS_A_LOOP_STATE: type[LoopState] = AgentView
