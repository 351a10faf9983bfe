"""Ask the user whether a tool call may run: yes / no / always for this session."""

from __future__ import annotations

import json

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ApprovalScreen(ModalScreen[str]):
    """Dismisses with "yes", "no" or "always"."""

    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; }
    ApprovalScreen > Vertical { width: 80%; max-width: 100; height: auto; border: thick $warning;
                                background: $surface; padding: 1 2; }
    ApprovalScreen .reason { color: $warning; margin-bottom: 1; }
    ApprovalScreen .call { background: $boost; padding: 0 1; margin-bottom: 1; max-height: 12; }
    ApprovalScreen Horizontal { height: auto; align: center middle; }
    ApprovalScreen Button { margin: 0 1; }
    ApprovalScreen .hint { color: $text-muted; margin-top: 1; }
    """

    AUTO_FOCUS = "#no"  # Enter typed by habit must never approve a dangerous call

    BINDINGS = [
        Binding("y", "answer('yes')", "Yes"),
        Binding("n,escape", "answer('no')", "No"),
        Binding("a", "answer('always')", "Always"),
    ]

    def __init__(
        self, tool_name: str, arguments: dict, reason: str, always_covers: str = ""
    ) -> None:
        super().__init__()
        self.tool_name = tool_name
        self.arguments = arguments
        self.reason = reason
        self.always_covers = always_covers

    def compose(self) -> ComposeResult:
        args = json.dumps(self.arguments, ensure_ascii=False, indent=2)
        with Vertical():
            yield Static(Text(f"Allow {self.tool_name}?", style="bold"))
            yield Static(Text(self.reason), classes="reason")
            yield Static(Text(args), classes="call")
            with Horizontal():
                yield Button("Yes (y)", id="yes", variant="success")
                yield Button("No (n)", id="no", variant="error")
                yield Button("Always (a)", id="always", variant="warning")
            if self.always_covers:
                yield Static(
                    Text(f"Always = allow {self.always_covers}, until /new or /clear."),
                    classes="hint",
                )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "no")

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
