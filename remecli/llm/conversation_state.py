"""A conversation as the memory runtime keeps it: its state, its messages and their saved form.

`remecli.conversation` saves, resumes, compacts and offloads a conversation through this
module and never sees the agent runtime: `ConversationState` is what it binds to (the live
agent's, or one read from disk to build the agent with), `ContextMessage` what its context
holds, and the functions below make, read and write them. The runtime's side of each is in
`remecli.llm.agentscope_state` (imported only when one is called: the UI paints first).

Saved form: a state is the JSON object `state_to_json` gives (`session_id`, `summary`,
`context`, …) and a message the object `message_to_json` gives; the state file and the
transcript hold exactly these, so sessions saved by earlier versions resume and earlier
versions (and Studio, `remecli sessions`, the transcript page) read what this one writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from remecli.llm.message import Role


class ContentBlock(Protocol):
    """One block of a message: text, thinking, a tool call or result, a hint, an attachment
    (`type` says which; a tool call and its result share `id`)."""

    @property
    def type(self) -> str:
        """The kind of block."""
        ...

    @property
    def id(self) -> str:
        """Its id within the conversation."""
        ...


class ContextMessage(Protocol):
    """One message of a conversation's context: who said it and its blocks, in order.

    `metadata` is kept with it on disk (e.g. `SAVED_MARK`, set once it was handed to memory)."""

    id: str
    name: str
    content: list[Any]  # `ContentBlock`s
    metadata: dict[str, Any]
    created_at: str  # ISO time it was said

    @property
    def role(self) -> str:
        """`user`, `assistant` or `system`."""
        ...


class ConversationState(Protocol):
    """What a conversation is: its id, the messages the model sees and the summary sent
    before them (the rolling checkpoint). Setting one changes the conversation the agent runs
    on (the state of a live agent is the agent's own)."""

    @property
    def session_id(self) -> str:
        """Names its transcript and state file."""
        ...

    @session_id.setter
    def session_id(self, value: str) -> None: ...

    @property
    def summary(self) -> str:
        """The summary message's text ("" for none)."""
        ...

    @summary.setter
    def summary(self, value: str) -> None: ...

    @property
    def context(self) -> list[Any]:
        """The messages the model sees (`ContextMessage`s), oldest first; the agent appends."""
        ...

    @context.setter
    def context(self, value: list[Any]) -> None: ...


def new_session_id() -> str:
    """A fresh conversation id (names its transcript and state file)."""
    from remecli.llm import agentscope_state

    return agentscope_state.new_session_id()


def live_state(state: object) -> ConversationState:
    """The `ConversationState` of an agent's `state` (the agent runtime's own object)."""
    from remecli.llm import agentscope_state

    return agentscope_state.live_state(state)


def new_state(session_id: str | None = None) -> ConversationState:
    """An empty conversation (a fresh id unless `session_id` is given)."""
    from remecli.llm import agentscope_state

    return agentscope_state.new_state(session_id)


def state_from_json(data: Mapping[str, object]) -> ConversationState:
    """A saved state read back; `ValueError` when it is not the shape `state_to_json` writes."""
    from remecli.llm import agentscope_state

    return agentscope_state.state_from_json(data)


def state_to_json(state: ConversationState) -> dict[str, object]:
    """The saved form of `state` (JSON types only)."""
    from remecli.llm import agentscope_state

    return agentscope_state.state_to_json(state)


def message_from_json(data: Mapping[str, object]) -> ContextMessage:
    """A saved message read back; `ValueError` when it is not the shape `message_to_json`
    writes."""
    from remecli.llm import agentscope_state

    return agentscope_state.message_from_json(data)


def message_to_json(message: ContextMessage) -> dict[str, object]:
    """The saved form of `message` (JSON types only)."""
    from remecli.llm import agentscope_state

    return agentscope_state.message_to_json(message)


def with_blocks(message: ContextMessage, blocks: Sequence[ContentBlock]) -> ContextMessage:
    """A copy of `message` (same id, name, role, time, metadata) holding `blocks` (the same
    block objects: a later change to one shows in both)."""
    from remecli.llm import agentscope_state

    return agentscope_state.with_blocks(message, blocks)


def blocks_from_json(data: Sequence[Mapping[str, object]]) -> list[ContentBlock]:
    """Saved blocks read back (as a message's `content` holds them); `ValueError` when one is
    not a block."""
    from remecli.llm import agentscope_state

    return agentscope_state.blocks_from_json(data)


def block_to_json(block: ContentBlock) -> dict[str, object]:
    """The saved form of one block."""
    from remecli.llm import agentscope_state

    return agentscope_state.block_to_json(block)


def text_block(text: str) -> ContentBlock:
    """A text block holding `text` (an offloaded tool result's kept text)."""
    from remecli.llm import agentscope_state

    return agentscope_state.text_block(text)


def text_message(
    role: Role,
    text: str,
    *,
    name: str | None = None,
    id: str | None = None,
    created_at: str | None = None,
) -> ContextMessage:
    """A message of `role` saying `text` (named `name`, default the role)."""
    from remecli.llm import agentscope_state

    return agentscope_state.text_message(role, text, name=name, id=id, created_at=created_at)
