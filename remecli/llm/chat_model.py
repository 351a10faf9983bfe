"""The provider seam: what remecli asks of a chat model, in remecli's own types.

Compaction, the summarizer, dream, resource cards and vector memory talk to a `ChatModel`:
stream the text of an answer, ask for JSON, or hand the agent loop (agentscope's ReAct
agent, which makes the tool calls) the provider object it drives. The OpenAI-compatible
implementation lives in `remecli.llm.agentscope_model` (the one module that knows agentscope's
model internals); unit tests use the in-process `tests.fakes.mock_model.MockModel`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from pydantic import BaseModel

if TYPE_CHECKING:
    from agentscope.model import ChatModelBase

Role = Literal["system", "user", "assistant"]
JSONValue: TypeAlias = dict[str, Any] | list[Any]
# What `complete_json` checks the answer against: a JSON schema (its top-level `type`), or a
# pydantic model (validated in full).
JSONSchema: TypeAlias = Mapping[str, Any] | type[BaseModel]


@dataclass(frozen=True)
class ChatMessage:
    """One message of a plain request: who says it and its text."""

    role: Role
    content: str


def system(text: str) -> ChatMessage:
    """A system message."""
    return ChatMessage("system", text)


def user(text: str) -> ChatMessage:
    """A user message."""
    return ChatMessage("user", text)


def assistant(text: str) -> ChatMessage:
    """An assistant message (an earlier answer, e.g. before asking again)."""
    return ChatMessage("assistant", text)


class JSONAnswerError(ValueError):
    """The answer held no JSON of the asked shape.

    `problem` says what is wrong in words the model can act on ("it is not a JSON object",
    "`units.0.name`: Field required"); `answer` is the text the model gave.
    """

    def __init__(self, problem: str, answer: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.answer = answer


class ChatModel(Protocol):
    """A chat model as remecli uses it (see the module docstring)."""

    @property
    def model_name(self) -> str:
        """The model's name at its endpoint (recorded as the author of what it writes)."""
        ...

    def stream_text(self, messages: Sequence[ChatMessage]) -> AsyncIterator[str]:
        """The answer to `messages` as text pieces, in order (one piece when not streamed).

        Raises `asyncio.CancelledError` when the call was interrupted, and the provider's own
        exception when it failed (`remecli.llm.errors.classify` phrases it for the user).
        """
        ...

    async def complete_json(
        self, messages: Sequence[ChatMessage], schema: JSONSchema | None = None
    ) -> JSONValue:
        """The JSON value of the answer to `messages` (read by `remecli.llm.json_answer`).

        Asked with `response_format` where the server takes it (`remecli.llm.structured_output`).

        Raises `JSONAnswerError` when the answer holds none, or none that fits `schema`.
        """
        ...

    def agent_model(self) -> ChatModelBase:
        """The provider object agentscope's agent loop drives (tool calls go through it)."""
        ...

    async def aclose(self) -> None:
        """Release the HTTP connections; the model is not used afterwards."""
        ...
