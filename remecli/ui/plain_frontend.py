"""The line-mode REPL's side of the slash-command protocol (`remecli.commands.frontend.FrontEnd`)."""

from __future__ import annotations

import asyncio
import base64
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markdown import Markdown

if TYPE_CHECKING:
    from remecli.conversation.session_list import SessionInfo

HORSE_LINE = "🐎 马到成功 — success the moment the horse arrives. Happy Year of the Horse 2026!"


class PlainFrontEnd:
    """Screen actions for slash commands in a line-mode terminal: pages are printed, the
    clipboard is reached with OSC 52, a session is picked by number."""

    keys: Sequence[tuple[str, str]] = ()
    config_hint = "`remecli config=cli key=value …`"
    log_file = ""

    def __init__(self, out: Console, err: Console) -> None:
        self.out = out
        self.err = err
        self.quit_requested = False
        self.resume_requested: str | None = None
        self.forget_requested = False

    async def show_page(self, title: str, markdown: str) -> None:
        self.out.print(Markdown(markdown))

    async def clear_view(self) -> None:
        """Nothing to remove in a scrolling terminal."""

    async def forget_typed(self) -> None:
        self.forget_requested = True

    async def quit(self) -> None:
        self.quit_requested = True

    async def copy(self, text: str, what: str) -> None:
        stream = sys.stdout
        if stream.isatty():
            stream.write(f"\x1b]52;c;{base64.b64encode(text.encode()).decode()}\a")
            stream.flush()
            self.err.print(f"Copied {what} ({len(text):,} characters) to the clipboard (OSC 52).")
        else:
            self.err.print(f"{what} (not a terminal, so printed instead of copied):")
            self.out.print(text, markup=False, highlight=False)

    async def pick_session(self, sessions: Sequence[SessionInfo]) -> str | None:
        shown = list(sessions)[:20]
        for n, info in enumerate(shown, 1):
            when = info.last_activity.replace("T", " ")[:16]
            self.err.print(
                f"{n:>3}. {when}  {info.messages:>4} msgs  {info.first_user_line}",
                markup=False,
                highlight=False,
            )
        answer = (await asyncio.to_thread(input, "resume which (number, Enter cancels)? ")).strip()
        if answer.isdigit() and 1 <= int(answer) <= len(shown):
            return shown[int(answer) - 1].session_id
        return None

    async def resume(self, session_id: str) -> None:
        self.resume_requested = session_id

    async def celebrate(self) -> None:
        self.out.print(HORSE_LINE)
