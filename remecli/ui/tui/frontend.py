"""The TUI's side of the slash-command protocol (`remecli.commands.frontend.FrontEnd`), and the
command palette's provider. Every command reaches the screen only through these methods."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from remecli.commands import COMMANDS
from remecli.ui.tui.screens.approval_screen import ApprovalScreen, always_hint

if TYPE_CHECKING:
    from remecli.conversation.session_list import SessionInfo
    from remecli.ui.tui.app import RemeApp

log = logging.getLogger(__name__)

KEYS = [
    ("Enter", "send"),
    ("Ctrl+J", "new line in the prompt"),
    ("↑ / ↓", "input history (on the first / last line); move in the / menu"),
    ("Tab", "complete a /command"),
    ("PgUp / PgDn, Shift+↑ / Shift+↓", "scroll the conversation"),
    (
        "Home / End",
        "top / bottom of the conversation (when the prompt is empty; Ctrl+Home/End always)",
    ),
    ("Esc", "cancel the reply in flight"),
    ("mouse drag, then Ctrl+C", "copy the selected text (OSC 52 clipboard)"),
    ("Ctrl+C", "copy a selection; otherwise cancel; twice to quit"),
    ("Ctrl+D / Ctrl+Q", "quit"),
    ("Ctrl+P", "command palette (every slash command)"),
]


class TuiFrontEnd:
    """Screen actions for slash commands, performed on the running `RemeApp`."""

    keys: Sequence[tuple[str, str]] = KEYS
    config_hint = "`remecli config=cli key=value …` (see `remecli --help`)"

    def __init__(self, app: RemeApp) -> None:
        self.app = app
        self.log_file = str(app.log_file or "")
        self.approval: ApprovalScreen | None = None  # the approval dialog on screen, if any

    async def ask_approval(self, request: Any) -> str:
        """The core's approval callback: a dialog; "yes", "no" or "always"."""
        app = self.app
        renderer = app.renderer
        assert renderer is not None
        renderer.set_waiting(f"waiting for your approval of {request.tool_name}…")
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()

        def answered(answer: str | None) -> None:
            if not future.done():
                future.set_result(answer or "no")

        screen = ApprovalScreen(
            request.tool_name,
            dict(request.arguments),
            request.reason,
            request.always_covers,
            hint=always_hint(request.tool_name, request.kind, request.scope),
            workspace=app.assistant.workspace,
        )
        self.approval = screen
        app.push_screen(screen, callback=answered)
        try:
            return await future
        finally:
            self.approval = None
            renderer.set_waiting(None)
            self.close_approval(screen)  # the reply was cancelled under the dialog: denied

    def close_approval(self, screen: ApprovalScreen | None = None) -> None:
        """Dismiss the approval dialog (as "no") if it is still on screen."""
        screen = screen or self.approval
        if screen is not None and screen.is_current:
            screen.dismiss("no")

    async def show_page(self, title: str, markdown: str) -> None:
        from remecli.ui.tui.screens.text_screen import TextScreen

        self.app.push_screen(TextScreen(markdown, title))

    async def clear_view(self) -> None:
        """Empty the conversation view (a new conversation starts); the counters start over."""
        from remecli.ui.tui import collector_pauses
        from remecli.ui.tui.widgets.status_line import StatusLine

        collector_pauses.release()  # the widgets about to go are freed at the next settle
        await self.app.chat.remove_children()
        self.app.query_one(StatusLine).compactions = 0
        self.app.input_history.mark_conversation()

    async def forget_typed(self) -> None:
        """/clear: what was typed in this conversation leaves the input history file too."""
        self.app.input_history.forget_conversation()

    async def quit(self) -> None:
        await self.app.action_quit_app()

    async def copy(self, text: str, what: str) -> None:
        self.app.copy_to_clipboard(text)
        lines = text.count("\n") + 1
        await self.app.chat.add_notice(
            f"• Copied {what} ({lines} line{'s' if lines > 1 else ''}, {len(text):,} characters) "
            "to the clipboard."
        )

    async def pick_session(self, sessions: Sequence[SessionInfo]) -> str | None:
        from remecli.ui.tui.screens.session_picker import SessionPicker

        result: Any = await self.app.push_screen(SessionPicker(sessions), wait_for_dismiss=True)
        return result if isinstance(result, str) else None

    async def resume(self, session_id: str) -> None:
        """Save the current conversation, then continue `session_id` in its place."""
        from remecli.agent.assistant import Assistant
        from remecli.ui.tui.widgets.status_line import StatusLine

        app = self.app
        chat = app.chat
        app.query_one(StatusLine).state = "resuming…"
        await chat.add_notice(f"• Saving this conversation, then resuming {session_id}…")
        await app.assistant.close(force=True)  # unfinished summaries stay pending: retried at start
        settings = app.settings.model_copy(update={"resume": session_id})
        app.assistant = Assistant(settings, cwd=app.cwd, ask=self.ask_approval)
        app.assistant.notices.listener = app.background_event
        await self.clear_view()
        try:
            await app.assistant.start()
        except Exception as exc:
            log.exception("resume failed")
            await chat.add_error(f"Could not resume {session_id}: {exc}")
            return
        renderer = app.renderer
        assert renderer is not None
        for event in app.assistant.replay():
            await renderer.render(event)
        await renderer.end_reply()
        await chat.add_notice(f"• Resumed conversation {session_id}.")
        renderer.context_usage(app.assistant.context_usage())

    def copy_selection(self) -> bool:
        """Copy selected text (in the chat or in the prompt) to the clipboard; True if any."""
        from remecli.ui.tui.widgets.chat_input import ChatInput

        app = self.app
        selected = app.screen.get_selected_text()
        box = app.query_one(ChatInput)
        if not selected and app.focused is box:
            selected = box.selected_text
        if not selected:
            return False
        app.copy_to_clipboard(selected)
        app.screen.clear_selection()
        app.notify(f"Copied {len(selected):,} characters to the clipboard.", timeout=2)
        return True

    async def celebrate(self) -> None:
        from remecli.ui.tui.horse import HorseScreen

        self.app.push_screen(HorseScreen())


class SlashCommands(Provider):
    """Every slash command in the command palette (listed before anything is typed, too)."""

    async def discover(self) -> Hits:
        for name, command in COMMANDS.items():
            yield DiscoveryHit(f"/{name}", self._runner(name), help=command.summary)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, command in COMMANDS.items():
            score = matcher.match(f"/{name} {command.summary}")
            if score > 0:
                yield Hit(
                    score, matcher.highlight(f"/{name}"), self._runner(name), help=command.summary
                )

    def _runner(self, name: str) -> Callable[[], Any]:
        app: Any = self.app
        return lambda: app.run_command_text(f"/{name}")
