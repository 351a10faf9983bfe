"""`/resume`: pick a saved conversation (newest first); Enter resumes it, Esc cancels."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from remecli.conversation.session_list import SessionInfo


def session_label(info: SessionInfo) -> Text:
    """One line per session: last activity, message count, first thing the user said."""
    when = info.last_activity.replace("T", " ")[:16]
    label = Text(f"{when}  ", style="bold")
    label.append(f"{info.messages:>4} msgs  ", style="dim")
    if info.one_shot:
        label.append("one-shot (-p)  ", style="italic dim")
    label.append(info.first_user_line or "(no message)")
    return label


class SessionPicker(ModalScreen[str | None]):
    """Dismisses with the chosen session id, or None."""

    DEFAULT_CSS = """
    SessionPicker { align: center middle; }
    SessionPicker > Vertical { width: 90%; max-width: 110; height: auto; max-height: 90%;
                               border: round $accent; background: $surface; padding: 0 1; }
    SessionPicker OptionList { height: auto; max-height: 20; border: none; }
    SessionPicker .hint { color: $text-muted; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, sessions: Sequence[SessionInfo]) -> None:
        super().__init__()
        self.sessions = list(sessions)  # most recent first, one-shots among them

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "resume a conversation"
            yield OptionList(*(Option(session_label(s), id=s.session_id) for s in self.sessions))
            yield Static(
                "Enter resume · Esc cancel · the current conversation is saved first",
                classes="hint",
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
