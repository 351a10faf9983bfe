"""What a `ChatSession` says to its front-end besides the agent's own events.

Front-ends render these and answer the futures some of them carry; they never call into the
core otherwise. Screen requests (a page, clear the view, copy, quit, the horse) are events too,
so a slash command needs no front-end object to act on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from remecli.agent import events as ev

if TYPE_CHECKING:
    from remecli.conversation.session_list import SessionInfo


@dataclass(frozen=True)
class UserTurn:
    """A message was accepted: show it (marked queued while it waits for its turn)."""

    text: str
    queued: bool = False


@dataclass(frozen=True)
class CommandQueued:
    """A conversation-changing command waits for the running reply to end."""

    text: str


@dataclass(frozen=True)
class WorkStarted:
    """A reply (or a conversation-changing command) begins; `label` is the activity
    ("thinking…", "/compact…")."""

    label: str


@dataclass(frozen=True)
class MessageSent:
    """The message `text` went to the model: it is no longer queued."""

    text: str


@dataclass(frozen=True)
class WorkEnded:
    """The reply or command of the last `WorkStarted` ended; `cancelled` for a cancelled reply."""

    cancelled: bool = False


@dataclass(frozen=True)
class InputHandled:
    """Everything one submitted line caused has been emitted (line-mode front-ends prompt again)."""

    text: str


@dataclass(frozen=True)
class Activity:
    """The status line's activity: "loading agent…", "ready", "error", "resuming…"."""

    text: str


@dataclass(frozen=True)
class ShowPage:
    """Show a page of Markdown (help, history, interests) until the user closes it."""

    title: str
    markdown: str


@dataclass(frozen=True)
class ClearView:
    """Remove the conversation from the view (the core has started a new one)."""


@dataclass(frozen=True)
class ForgetTyped:
    """/clear: forget what was typed in this conversation (the input history)."""


@dataclass(frozen=True)
class QuitRequested:
    """/exit: leave the orderly way (the front-end saves memory first through `close()`)."""


@dataclass(frozen=True)
class CopyText:
    """Put `text` on the clipboard; `what` names it for the confirmation ("the last answer")."""

    text: str
    what: str


@dataclass(frozen=True)
class Celebrate:
    """The /horse show."""


@dataclass(frozen=True)
class PickSession:
    """Let the user choose a saved conversation: set `answer` to its id, or None to cancel."""

    sessions: Sequence[SessionInfo]
    answer: asyncio.Future[str | None]


@dataclass(frozen=True)
class Resuming:
    """The current conversation is saved and `session_id` is loaded in its place."""

    session_id: str


@dataclass(frozen=True)
class Replay:
    """A resumed conversation as it was, to show where it left off; `compactions` it went
    through so far (the status line keeps counting from there)."""

    events: list[ev.CoreEvent] = field(default_factory=list)
    compactions: int = 0


@dataclass(frozen=True)
class Resumed:
    """Conversation `session_id` continues (`turns` user messages so far)."""

    session_id: str
    turns: int


@dataclass(frozen=True)
class ModelSwitched:
    """/model: replies come from `model_name` from now on (the status line shows it)."""

    model_name: str


ScreenRequest = ShowPage | ClearView | ForgetTyped | QuitRequested | CopyText | Celebrate
SessionEvent = (
    ev.CoreEvent
    | ev.SyncStatus  # the automatic sync's outcome (`auto_sync`), for the status line
    | UserTurn
    | CommandQueued
    | WorkStarted
    | MessageSent
    | WorkEnded
    | InputHandled
    | Activity
    | ScreenRequest
    | PickSession
    | Resuming
    | Replay
    | Resumed
    | ModelSwitched
)
