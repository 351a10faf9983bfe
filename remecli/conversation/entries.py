"""What a session keeps per message, and what a compaction plans to fold."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from remecli.llm.blocks import MSG_OVERHEAD
from remecli.llm.conversation_state import ContextMessage


class ToolResultBlock(Protocol):
    """A `tool_result` block as offloading reads and rewrites it: the tool's name and its output
    (text, or blocks of which the `text` ones are replaced)."""

    id: str
    name: str
    output: str | list[Any]  # `ContentBlock`s

    @property
    def type(self) -> str:
        """`tool_result`."""
        ...


@dataclass
class Entry:
    """One message: its full form, which block keys are live / compressed, and its context copy."""

    msg: ContextMessage
    live: dict[str, int] = field(default_factory=dict)
    compressed: set[str] = field(default_factory=set)
    ctx: ContextMessage | None = None
    ctx_seen: int = 0

    @property
    def tokens(self) -> int:
        return sum(self.live.values()) + MSG_OVERHEAD if self.live else 0


@dataclass
class CompactionPlan:
    """What a compaction folds into the summary and what it keeps, cut between atoms."""

    messages: list[ContextMessage]
    covered: dict[str, list[str]]
    tokens: int
    kept_tokens: int

    @property
    def empty(self) -> bool:
        return not self.covered
