"""A scrollable full-screen page of Markdown (used by /help and /history); Esc or q closes it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from remecli.ui.tui.widgets.markdown_parser import tui_markdown_parser


class TextScreen(ModalScreen[None]):
    """Shows Markdown in a scrollable frame."""

    DEFAULT_CSS = """
    TextScreen { align: center middle; }
    TextScreen > VerticalScroll { width: 95%; height: 90%; border: round $accent; background: $surface;
                                  padding: 0 1; }
    TextScreen .hint { dock: bottom; color: $text-muted; height: 1; }
    """

    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, markdown: str, title: str) -> None:
        super().__init__()
        self.markdown = markdown
        self.title_text = title

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = self.title_text
            yield Markdown(self.markdown, parser_factory=tui_markdown_parser)
        yield Static("Esc / q to close · ↑↓ PgUp PgDn to scroll", classes="hint")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()
