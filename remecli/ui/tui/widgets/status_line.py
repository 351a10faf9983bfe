"""The status line: model, context meter, compactions, background memory tasks, the last
automatic sync, working dir."""

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
    sync: reactive[str] = reactive("")  # the last automatic sync ("!…": it needs the user)
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

    def on_resize(self) -> None:
        self.refresh()  # what fits is chosen again at the new width

    def render(self) -> Text:
        """The fields that fit the width: the least needed go first (see `NARROWER`), the
        state (ready, answering…) last of all."""
        fields = self._fields()
        width = self.content_size.width
        line = _joined(fields)
        for name, drop in NARROWER:
            if not width or line.cell_len <= width:
                break
            forms = fields.get(name, [])
            if drop and forms:
                del fields[name]
            elif len(forms) > 1:
                forms.pop(0)
            line = _joined(fields)
        if width and line.cell_len > width:
            line.truncate(width, overflow="ellipsis")
        return line

    def _fields(self) -> dict[str, list[Text]]:
        """Each field shown, in order, as its forms from longest to shortest."""
        ratio = self.tokens / self.max_tokens if self.max_tokens else 0.0
        style = "red" if ratio > 0.85 else "yellow" if ratio > 0.6 else "green"
        bar = Text("ctx ").append(meter(ratio), style=style)
        fields: dict[str, list[Text]] = {}
        if self.model_name:
            fields["model"] = [Text(f" {self.model_name} ", style="bold")]
        fields |= {
            "ctx": [
                bar.copy().append(f" {self.tokens:,}/{self.max_tokens:,} ({ratio:.0%})"),
                bar.copy().append(f" ({ratio:.0%})"),
                Text("ctx ").append(f"{ratio:.0%}", style=style),
            ],
        }
        if self.reply_usage:
            fields["usage"] = [Text(self.reply_usage)]
        if self.compactions:
            plural = "s" if self.compactions > 1 else ""
            fields["compactions"] = [Text(f"{self.compactions} compaction{plural}")]
        if self.background_tasks:
            spinner = SPINNER[self._frame]
            fields["tasks"] = [
                Text(f"{spinner} memory ×{self.background_tasks}", style="cyan"),
                Text(f"{spinner} ×{self.background_tasks}", style="cyan"),
            ]
        if self.sync:
            trouble = self.sync.startswith("!")
            text = self.sync.removeprefix("!")
            fields["sync"] = [Text(f"⇅ {text}", style="yellow" if trouble else "dim")]
        spin = SPINNER[self._frame] + " " if self.state.endswith("…") else ""
        fields["state"] = [Text(f"{spin}{self.state}")]
        if self.working_dir:
            memory = [Text(self.working_dir, style="dim")]
            if len(self.working_dir) > MEMORY_SHORT:  # a long project name or path
                memory.append(Text(self.working_dir[: MEMORY_SHORT - 1] + "…", style="dim"))
            fields["memory"] = memory
        return fields


# what gives way first when the line is too narrow: (field, True) drops it, (field, False)
# shortens it to its next form; the state is never dropped
NARROWER = (
    ("ctx", False),  # the token counts go, the meter and percentage stay
    ("usage", True),
    ("sync", True),
    ("ctx", False),  # "ctx 2%"
    ("memory", False),
    ("compactions", True),
    ("memory", True),
    ("model", True),
    ("ctx", True),
    ("tasks", False),
)
MEMORY_SHORT = 24  # the memory's label shortened to this many characters


def _joined(fields: dict[str, list[Text]]) -> Text:
    """The line: the shown form of each field, apart by " · " (the context meter follows the
    model's name after a space)."""
    line = Text()
    previous = ""
    for name, forms in fields.items():
        text = forms[0]
        lead = (" " if previous == "model" else " · ") if previous else " " * (name != "model")
        spans = [span.move(len(lead)) for span in text.spans]  # the lead in the field's style
        line.append_text(Text(lead + text.plain, style=text.style, spans=spans))
        previous = name
    return line
