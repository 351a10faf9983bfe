"""The status line: model, context meter, compactions, background memory tasks, working dir."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def meter(ratio: float, width: int = 10) -> str:
    """A text bar for a 0..1 ratio."""
    filled = max(0, min(width, round(ratio * width)))
    return "█" * filled + "░" * (width - filled)


class StatusLine(Static):
    """One line at the bottom; every field is a reactive the app sets from core events."""

    DEFAULT_CSS = """
    StatusLine { dock: bottom; height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """

    model_name: reactive[str] = reactive("")
    tokens: reactive[int] = reactive(0)
    max_tokens: reactive[int] = reactive(0)
    compactions: reactive[int] = reactive(0)
    background_tasks: reactive[int] = reactive(0)
    working_dir: reactive[str] = reactive("")
    state: reactive[str] = reactive("starting…")
    reply_usage: reactive[str] = reactive("")  # the last reply's tokens (and cost)
    _frame: reactive[int] = reactive(0)

    def on_mount(self) -> None:
        self.set_interval(0.12, self._tick)

    def _tick(self) -> None:
        if self.app.animation_level == "none":  # TEXTUAL_ANIMATIONS=none: a still spinner
            return
        if self.background_tasks or self.state.endswith("…"):
            self._frame = (self._frame + 1) % len(SPINNER)

    def render(self) -> Text:
        ratio = self.tokens / self.max_tokens if self.max_tokens else 0.0
        style = "red" if ratio > 0.85 else "yellow" if ratio > 0.6 else "green"
        line = Text()
        line.append(f" {self.model_name} ", style="bold")
        line.append(" ctx ")
        line.append(meter(ratio), style=style)
        line.append(f" {self.tokens:,}/{self.max_tokens:,} ({ratio:.0%})")
        if self.reply_usage:
            line.append(f" · {self.reply_usage}")
        if self.compactions:
            line.append(f" · {self.compactions} compaction{'s' if self.compactions > 1 else ''}")
        if self.background_tasks:
            line.append(f" · {SPINNER[self._frame]} memory ×{self.background_tasks}", style="cyan")
        spin = SPINNER[self._frame] + " " if self.state.endswith("…") else ""
        line.append(f" · {spin}{self.state}")
        line.append(f" · {self.working_dir}", style="dim")
        return line
