"""The core's events: small dataclasses every front-end (TUI, plain, one-shot) renders.

The agent runtime turns agentscope's event stream into these; no front-end reaches into the
agent's internals, and nothing here knows about Textual.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal

# The memory system's notices are core events too (one definition, in remecli.conversation.notices).
from remecli.conversation.notices import (
    CompactionDone,
    CompactionStarted,
    ContextUsage,
    DiskFull,
    ToolResultOffloaded,
)

# The agent loop's text and tool-call events are core events as they are (one definition each).
from remecli.llm.agent_loop import TextDelta, ThinkingDelta, ToolCallReady, ToolCallStarted
from remecli.llm.agent_loop import ToolCallFinished as ToolFinished
from remecli.llm.agent_loop import Usage as UsageReport
from remecli.llm.retry_notices import RetryNotice as Retrying


@dataclass(frozen=True)
class UserMessage:
    """A user turn (replayed when a conversation is resumed)."""

    text: str


@dataclass(frozen=True)
class ToolOutput:
    """Output streamed by a running tool (the full text, before any offload)."""

    call_id: str
    text: str


@dataclass(frozen=True)
class Notice:
    """A one-line notice: a compaction ran, a background summary finished, …"""

    text: str
    kind: Literal["info", "memory", "warning"] = "info"


@dataclass(frozen=True)
class SyncStatus:
    """The last automatic sync over git, for the status line ("synced 14:02", "1 conflict")."""

    text: str
    trouble: bool = False  # a conflict, a refused file or an unreachable remote


@dataclass(frozen=True)
class BackgroundTasks:
    """How many background memory summaries are running (0 = all done)."""

    running: int


@dataclass(frozen=True)
class ErrorReport:
    """An error phrased for the user; the session stays usable."""

    message: str
    kind: str = "error"
    unanswered: bool = False  # the user's message was taken back out of the context


@dataclass(frozen=True)
class ApprovalRequest:
    """A tool call waits for the user's approval. The front-end shows `request` (tool_name,
    arguments, reason, kind, scope, always_covers) and sets `answer` to "yes", "no" or
    "always"; when the reply is cancelled first, the session cancels `answer` (the question is
    gone: close the dialog)."""

    request: Any
    answer: asyncio.Future[str]


@dataclass(frozen=True)
class ReplyFinished:
    """The reply ended (completed, interrupted, exceed_max_iters, error)."""

    reason: str
    text: str = ""
    usage: dict[str, int] = field(default_factory=dict)


CoreEvent = (
    UserMessage
    | TextDelta
    | ThinkingDelta
    | ToolCallStarted
    | ToolCallReady
    | ToolOutput
    | ToolFinished
    | UsageReport
    | ContextUsage
    | CompactionStarted
    | CompactionDone
    | ToolResultOffloaded
    | DiskFull
    | Notice
    | BackgroundTasks
    | ErrorReport
    | ReplyFinished
    | ApprovalRequest
    | Retrying
)


__all__ = [
    "ApprovalRequest",
    "BackgroundTasks",
    "CompactionDone",
    "CompactionStarted",
    "ContextUsage",
    "CoreEvent",
    "DiskFull",
    "ErrorReport",
    "Notice",
    "ReplyFinished",
    "Retrying",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallReady",
    "ToolCallStarted",
    "ToolFinished",
    "ToolOutput",
    "ToolResultOffloaded",
    "UsageReport",
    "UserMessage",
]
