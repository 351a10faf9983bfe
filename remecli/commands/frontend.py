"""What a slash command may ask of the front-end it runs in (the TUI or the line-mode REPL).

A command is one record in `registry.py`; its handler talks to the core (`Assistant`) and, for
anything about the screen, to this small protocol. Each front-end implements it once, so a new
command never adds a string check to a front-end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from remecli.agent.assistant import Assistant
    from remecli.conversation.session_list import SessionInfo


class FrontEnd(Protocol):
    """The screen actions commands use; every method is safe to call from a command handler."""

    #: (key, action) pairs for /help ("" when the front-end has no key bindings to show)
    keys: Sequence[tuple[str, str]]
    #: how to configure remecli from this front-end, for /help
    config_hint: str
    #: the log file, for /help ("" when unknown)
    log_file: str

    async def show_page(self, title: str, markdown: str) -> None:
        """Show a page of Markdown (help, history) until the user closes it."""

    async def clear_view(self) -> None:
        """Remove the conversation from the view (the core has started a new one)."""

    async def forget_typed(self) -> None:
        """Forget what was typed in this conversation (its input history), for /clear."""

    async def quit(self) -> None:
        """Leave the front-end the orderly way (memory is saved first)."""

    async def copy(self, text: str, what: str) -> None:
        """Put `text` on the clipboard; `what` names it for the confirmation ("the last answer")."""

    async def pick_session(self, sessions: Sequence[SessionInfo]) -> str | None:
        """Let the user choose a saved conversation; its id, or None when they cancel."""

    async def resume(self, session_id: str) -> None:
        """Continue conversation `session_id` in place of the current one (saved first)."""

    async def celebrate(self) -> None:
        """The /horse show (fireworks where the screen allows, one line elsewhere)."""


@dataclass
class CommandContext:
    """What a command handler gets: the core, the front-end (None in library use), the argument."""

    assistant: Assistant
    ui: FrontEnd | None
    arg: str = ""
