"""A tool call as a panel: name, arguments, spinner while running, duration, status, result."""

from __future__ import annotations

import json

from rich.text import Text
from textual.content import Content
from textual.widgets import Collapsible, Static

PREVIEW_LINES = 8
STATE_ICONS = {"success": "✓", "error": "✗", "denied": "⊘", "interrupted": "■", "running": "…"}


def short_arguments(arguments: str, width: int = 80) -> str:
    """A one-line rendering of a tool call's JSON arguments."""
    try:
        data = json.loads(arguments) if arguments else {}
    except json.JSONDecodeError:
        data = arguments
    if isinstance(data, dict):
        text = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in data.items())
    else:
        text = str(data)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def full_arguments(arguments: str) -> Text:
    """A tool call's arguments as an open panel shows them: one per line, a multi-line text
    (a file's content, a script) below its name as written, indentation and blank lines kept."""
    try:
        data = json.loads(arguments) if arguments else {}
    except json.JSONDecodeError:
        return Text(arguments)
    if not isinstance(data, dict):
        return Text(str(data))
    shown = Text()
    for key, value in data.items():
        if isinstance(value, str) and "\n" in value.rstrip("\n"):
            shown.append(f"{key}:\n", style="bold")
            shown.append(value.rstrip("\n") + "\n")
        else:
            shown.append(f"{key}=", style="bold")
            shown.append(json.dumps(value, ensure_ascii=False) + "\n")
    return shown


class ToolPanel(Collapsible):
    """Collapsed: a title line with status. Expanded: the arguments and the full result."""

    DEFAULT_CSS = """
    ToolPanel { height: auto; margin: 0 0 1 0; border: round $panel; padding: 0 1; }
    ToolPanel.-error { border: round $error; }
    ToolPanel.-denied { border: round $warning; }
    ToolPanel .tool-preview { color: $text-muted; }
    ToolPanel CollapsibleTitle { width: 100%; }
    """

    def __init__(self, call_id: str, name: str) -> None:
        self.call_id = call_id
        self.tool_name = name
        self.arguments = ""
        self.output = ""
        self.state = "running"
        self.duration: float | None = None
        self._body = Static("", classes="tool-preview", markup=False)
        # Content, not str: arguments may contain [brackets] (Textual accepts both here)
        title = Content(self._title_text())
        super().__init__(self._body, title=title, collapsed=True)  # type: ignore[arg-type]

    def _title_text(self) -> str:
        icon = STATE_ICONS.get(self.state, "?")
        took = f" · {self.duration:.1f}s" if self.duration is not None else ""
        args = short_arguments(self.arguments, 60)
        return f"{icon} {self.tool_name}({args}){took}" + (
            "" if self.state != "running" else " running…"
        )

    def _refresh(self) -> None:
        self.title = Content(self._title_text())  # type: ignore[assignment]  # see __init__
        lines = self.output.splitlines()
        preview = "\n".join(lines[:PREVIEW_LINES])
        if len(lines) > PREVIEW_LINES:
            preview += f"\n… {len(lines) - PREVIEW_LINES} more lines (click or Ctrl+O to expand)"
        if self.collapsed:
            body = Text(f"{self.tool_name} {short_arguments(self.arguments, 400)}\n", style="bold")
            body.append(preview)
        else:
            body = Text(f"{self.tool_name}\n", style="bold")
            body.append_text(full_arguments(self.arguments))
            if self.output:  # apart from the arguments (a file's content ends just above)
                body.append("\n" + self.output)
        self._body.update(body)

    def set_arguments(self, arguments: str) -> None:
        """The call's complete arguments."""
        self.arguments = arguments
        self._refresh()

    def add_output(self, text: str) -> None:
        """Output streamed while the tool runs."""
        self.output += text
        self._refresh()

    def finish(self, state: str, output: str, duration: float | None) -> None:
        """The tool ended (`duration` None or 0: unknown, e.g. cancelled or replayed)."""
        self.state = state
        self.output = output or self.output
        self.duration = duration or None
        self.set_class(state == "error", "-error")
        self.set_class(state == "denied", "-denied")
        self._refresh()

    def _watch_collapsed(self, collapsed: bool) -> None:
        super()._watch_collapsed(collapsed)
        self._refresh()

    @property
    def preview(self) -> str:
        """The title line as shown."""
        return self._title_text()
