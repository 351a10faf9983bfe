"""The agent runtime's side of `remecli.llm.conversation_state`: agentscope's `AgentState`,
`Msg` and content blocks are what a conversation's state and messages are made of, and their
JSON (pydantic's `model_dump(mode="json")`) is the saved form. Used by the agentscope adapter
(`agent_state`, when it builds an agent on a resumed conversation)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from agentscope.message import Msg, TextBlock
from agentscope.state import AgentState

from remecli.llm.message import Role

if TYPE_CHECKING:
    from remecli.llm.conversation_state import ContentBlock, ContextMessage, ConversationState


class AgentscopeState:
    """A `ConversationState` over agentscope's `AgentState` (a live agent's, or one read back
    to build an agent on: `agent_state` gives it to the adapter)."""

    def __init__(self, state: AgentState) -> None:
        self.agent_state = state

    @property
    def session_id(self) -> str:
        """See `ConversationState`."""
        return self.agent_state.session_id

    @session_id.setter
    def session_id(self, value: str) -> None:
        self.agent_state.session_id = value

    @property
    def summary(self) -> str:
        """See `ConversationState` (agentscope's summary may be blocks: their text)."""
        summary = self.agent_state.summary
        if isinstance(summary, str):
            return summary
        return "".join(getattr(block, "text", "") for block in summary)

    @summary.setter
    def summary(self, value: str) -> None:
        self.agent_state.summary = value

    @property
    def context(self) -> list[Any]:
        """See `ConversationState` (the agent's own list)."""
        return cast("list[Any]", self.agent_state.context)

    @context.setter
    def context(self, value: list[Any]) -> None:
        self.agent_state.context = value


def new_session_id() -> str:
    """A fresh conversation id, as agentscope makes one."""
    return AgentState().session_id


def live_state(state: object) -> ConversationState:
    """The `ConversationState` of an agent's `AgentState`."""
    if isinstance(state, AgentscopeState):
        return state
    if not isinstance(state, AgentState):
        raise TypeError(f"not an agent state of the runtime: {type(state).__name__}")
    return AgentscopeState(state)


def new_state(session_id: str | None = None) -> ConversationState:
    """An empty conversation (a fresh id unless `session_id` is given)."""
    state = AgentState() if session_id is None else AgentState(session_id=session_id)
    return AgentscopeState(state)


def agent_state(state: ConversationState) -> AgentState:
    """The `AgentState` an agent is built on: the one under `state`, else a new one saying
    what `state` says."""
    if isinstance(state, AgentscopeState):
        return state.agent_state
    return AgentState(session_id=state.session_id, summary=state.summary, context=state.context)


def state_from_json(data: Mapping[str, object]) -> ConversationState:
    """A saved state read back (pydantic's `ValidationError` is a `ValueError`)."""
    return AgentscopeState(AgentState.model_validate(dict(data)))


def state_to_json(state: ConversationState) -> dict[str, object]:
    """The saved form of `state`: the whole `AgentState`, as earlier versions wrote it."""
    return agent_state(state).model_dump(mode="json")


def message_from_json(data: Mapping[str, object]) -> ContextMessage:
    """A `Msg` read back."""
    return cast("ContextMessage", Msg.model_validate(dict(data)))


def message_to_json(message: ContextMessage) -> dict[str, object]:
    """The saved form of a `Msg`."""
    return _msg(message).model_dump(mode="json")


def with_blocks(message: ContextMessage, blocks: Sequence[ContentBlock]) -> ContextMessage:
    """A shallow copy of the `Msg` holding `blocks`."""
    return cast("ContextMessage", _msg(message).model_copy(update={"content": list(blocks)}))


def blocks_from_json(data: Sequence[Mapping[str, object]]) -> list[ContentBlock]:
    """Content blocks read back (validated as a message's content)."""
    holder = Msg.model_validate({"name": "x", "role": "assistant", "content": list(data)})
    return cast("list[ContentBlock]", list(holder.content))


def block_to_json(block: ContentBlock) -> dict[str, object]:
    """The saved form of one content block."""
    dumped: dict[str, object] = cast(Any, block).model_dump(mode="json")
    return dumped


def text_block(text: str) -> ContentBlock:
    """A `TextBlock`."""
    return cast("ContentBlock", TextBlock(text=text))


def text_message(
    role: Role,
    text: str,
    *,
    name: str | None = None,
    id: str | None = None,
    created_at: str | None = None,
) -> ContextMessage:
    """A `Msg` of `role` holding one text block (agentscope's id and time unless given)."""
    options: dict[str, Any] = {}
    if id is not None:
        options["id"] = id
    if created_at is not None:
        options["created_at"] = created_at
    msg = Msg(name=name or role, role=role, content=[TextBlock(text=text)], **options)
    return cast("ContextMessage", msg)


def _msg(message: ContextMessage) -> Msg:
    if not isinstance(message, Msg):
        raise TypeError(f"not a message of the agent runtime: {type(message).__name__}")
    return message
