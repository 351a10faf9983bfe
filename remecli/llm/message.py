"""remecli's own conversation types: a message and the parts it is made of.

What the agent loop takes and gives back (`remecli.llm.agent_loop`); agentscope's `Msg` and
blocks are converted to and from these only in `remecli.llm.agentscope_adapter`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

Role = Literal["system", "user", "assistant"]
ToolState = Literal["success", "error", "interrupted", "denied", "running"]


@dataclass(frozen=True)
class Text:
    """Text said by the user or the model."""

    text: str


@dataclass(frozen=True)
class Thinking:
    """The model's reasoning (shown, never sent back)."""

    text: str


@dataclass(frozen=True)
class Attachment:
    """A file sent with a message (an image): base64 `data` of `media_type`."""

    media_type: str
    data: str
    name: str | None = None


@dataclass(frozen=True)
class ToolCall:
    """The model asks for tool `name` with `arguments` (the JSON text it wrote)."""

    id: str
    name: str
    arguments: str = "{}"

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a dict; `{}` when they are not a JSON object."""
        try:
            value = json.loads(self.arguments or "{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class ToolOutput:
    """What a tool answers (or, streaming, one piece of it): text for the model, any images
    after it, whether the call failed, and `metadata` for the UI and tests (exit code, path…).

    Every remecli tool returns (or yields) this; the agentscope adapter's function tool
    (`remecli.llm.function_tool`) turns it into the runtime's result. In the conversation it
    becomes a `ToolResult` part, which names the call it answers.
    """

    text: str
    state: ToolState = "success"
    attachments: tuple[Attachment, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_error(self) -> bool:
        """True when the call failed (the model is told so)."""
        return self.state == "error"


@dataclass(frozen=True)
class ToolResult:
    """What tool `name` answered to the call `call_id`: a tool's `ToolOutput` as the
    conversation keeps it (its text and state)."""

    call_id: str
    name: str
    output: str
    state: ToolState = "success"

    @property
    def is_error(self) -> bool:
        """True when the call failed (the model was told so)."""
        return self.state == "error"


Part: TypeAlias = Text | Thinking | Attachment | ToolCall | ToolResult


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Message:
    """One message of a conversation: who says it and its parts, in order.

    `finished_reason` is set on a reply the loop ended ("completed", "exceed_max_iters", …).
    """

    role: Role
    parts: tuple[Part, ...]
    name: str = ""
    id: str = field(default_factory=_new_id)
    finished_reason: str | None = None

    @classmethod
    def user(cls, text: str, *attachments: Attachment, name: str = "user") -> Message:
        """A user message holding `text` (and any attachments after it)."""
        return cls("user", (Text(text), *attachments), name=name)

    @property
    def text(self) -> str:
        """The text parts, one per line (what the model said, without thinking or tool calls)."""
        return "\n".join(part.text for part in self.parts if isinstance(part, Text))

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls among the parts."""
        return [part for part in self.parts if isinstance(part, ToolCall)]

    @property
    def tool_results(self) -> list[ToolResult]:
        """The tool results among the parts."""
        return [part for part in self.parts if isinstance(part, ToolResult)]
