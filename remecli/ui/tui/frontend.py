"""The TUI's answers to the session's events that are not agent output: queued turns, activity,
screen requests (pages, clear, copy, quit, the horse) and questions (approval, session picker). The core is reached only through `ChatSession.submit`."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from remecli.agent import events as ev
from remecli.commands import session_events as se
from remecli.commands.frontend import FrontEndInfo
from remecli.ui.clipboard import copied_line, sized

if TYPE_CHECKING:
    from remecli.ui.tui.app import RemeApp
    from remecli.ui.tui.screens.approval_screen import ApprovalScreen

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
    ("Ctrl+O", "open / close the newest tool panel (or the focused one)"),
    ("Tab, then Enter", "move to a tool panel (Tab again: the next), open / close it"),
    ("Esc", "cancel the reply in flight"),
    ("mouse drag, then Ctrl+C", "copy the selected text (OSC 52 clipboard)"),
    ("Ctrl+C", "copy a selection; otherwise cancel; twice to quit"),
    ("Ctrl+D / Ctrl+Q", "quit"),
    ("Ctrl+P", "command palette (every slash command)"),
]
CONFIG_HINT = "`remecli config=cli key=value …` (see `remecli --help`)"


def about_tui(log_file: object) -> FrontEndInfo:
    """What /help says about the TUI."""
    return FrontEndInfo(KEYS, CONFIG_HINT, str(log_file or ""))


class TuiFrontEnd:
    """Shows the session's screen requests and questions on the running `RemeApp`."""

    def __init__(self, app: RemeApp) -> None:
        self.app = app
        self.approval: ApprovalScreen | None = None  # the approval dialog on screen, if any

    async def show(self, event: object) -> bool:
        """Handle `event` if it is one of the session's own; False for agent output."""
        app, chat = self.app, self.app.chat
        if isinstance(event, se.UserTurn):
            await chat.add_user(event.text, queued=event.queued)
        elif isinstance(event, se.MessageSent):
            await chat.unmark_queued(event.text)
        elif isinstance(event, se.CommandQueued):
            await chat.add_notice(f"• {event.text} queued: it runs when the reply ends.")
        elif isinstance(event, se.Activity | se.WorkStarted):
            app.status.state = event.text if isinstance(event, se.Activity) else event.label
        elif isinstance(event, ev.Retrying):
            app.view.set_state(event.line)
        elif isinstance(event, ev.ApprovalRequest):
            self.ask_approval(event)
        elif isinstance(event, se.PickSession):
            self.pick_session(event)
        elif isinstance(event, se.ShowPage):
            from remecli.ui.tui.screens.text_screen import TextScreen

            app.push_screen(TextScreen(event.markdown, event.title))
        elif isinstance(event, se.ClearView):
            await self.clear_view()
        elif isinstance(event, se.ForgetTyped):
            app.input_history.forget_conversation()  # /clear: typed lines leave the file too
        elif isinstance(event, se.QuitRequested):
            await app.action_quit_app()
        elif isinstance(event, se.CopyText):
            await self.copy(event.text, event.what)
        elif isinstance(event, se.Celebrate):
            from remecli.ui.tui.horse import HorseScreen

            app.push_screen(HorseScreen())
        elif isinstance(event, se.Resuming):
            app.status.state = "resuming…"
            await chat.add_notice(f"• Saving this conversation, then resuming {event.session_id}…")
        elif isinstance(event, se.Replay):
            for shown in event.events:  # a resumed conversation, where it left off
                await app.view.render(shown)
            await app.view.end_reply()
            app.status.compactions = event.compactions
        elif isinstance(event, se.Resumed):
            await chat.add_notice(f"• Resumed conversation {event.session_id}.")
        elif isinstance(event, se.ModelSwitched):
            app.status.model_name = event.model_name
        else:
            return False
        return True

    def ask_approval(self, event: ev.ApprovalRequest) -> None:
        """A dialog for the approval question; its answer ("yes", "no", "always") resolves the
        request's future. A reply cancelled under the dialog cancels the future: it closes.
        The dialog's module (difflib, its diff and JSON views) loads at the first question."""
        from remecli.ui.tui.screens.approval_screen import ApprovalScreen, always_hint

        app, request, answer = self.app, event.request, event.answer
        app.view.set_waiting(f"waiting for your approval of {request.tool_name}…")
        screen = ApprovalScreen(
            request.tool_name,
            dict(request.arguments),
            request.reason,
            request.always_covers,
            hint=always_hint(request.tool_name, request.kind, request.scope),
            workspace=app.assistant.workspace,
            preview=request.preview,
        )

        def answered(choice: str | None) -> None:
            if not answer.done():
                answer.set_result(choice or "no")

        def gone(_: asyncio.Future[str]) -> None:
            self.approval = None
            app.view.set_waiting(None)
            self.close_approval(screen)  # the reply was cancelled under the dialog: denied

        self.approval = screen
        app.push_screen(screen, callback=answered)
        answer.add_done_callback(gone)

    def close_approval(self, screen: ApprovalScreen | None = None) -> None:
        """Dismiss the approval dialog (as "no") if it is still on screen."""
        screen = screen or self.approval
        if screen is not None and screen.is_current:
            screen.dismiss("no")

    def pick_session(self, event: se.PickSession) -> None:
        from remecli.ui.tui.screens.session_picker import SessionPicker

        def picked(result: Any) -> None:
            if not event.answer.done():
                event.answer.set_result(result if isinstance(result, str) else None)

        self.app.push_screen(SessionPicker(event.sessions), callback=picked)

    async def clear_view(self) -> None:
        """Empty the conversation view (a new conversation starts); the counters start over."""
        from remecli.ui.tui import collector_pauses

        collector_pauses.release()  # the widgets about to go are freed at the next settle
        await self.app.chat.remove_children()
        self.app.status.compactions = 0
        self.app.input_history.mark_conversation()

    async def copy(self, text: str, what: str) -> None:
        """`/copy`: the text to the clipboard, and a notice that says where it went."""
        self.app.copy_to_clipboard(text)  # OSC 52
        line = await asyncio.to_thread(copied_line, text, sized(what, text))
        await self.app.chat.add_notice(f"• {line}")

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
        app.copy_to_clipboard(selected)  # OSC 52
        app.screen.clear_selection()
        app.notify(copied_line(selected, f"{len(selected):,} characters"), timeout=4)
        return True


__all__ = ["KEYS", "TuiFrontEnd", "about_tui"]
