"""Ask the user whether a tool call may run: yes / no / always for this session.

The call is shown the way a person reads it: a `write` as its path and a diff against the file
it replaces (or a preview of a new file), an `edit` as a diff, anything else as indented JSON;
long content is cut with a marker saying how much was left out. The dialog fits small terminals
(down to 40×15): the call area shrinks and scrolls, the buttons go flat.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

MAX_SHOWN_LINES = 60
ANY_KIND = "any"


def always_hint(tool_name: str, kind: str, scope: str) -> str:
    """What "always" allows, as a sentence."""
    if scope != "the workspace":
        return "Always = allow this exact call again, until /new or /clear."
    if not kind or kind == ANY_KIND:
        return f"Always = allow later {tool_name} calls inside the workspace, until /new or /clear."
    risk = kind.replace("-", " ")
    return (
        f"Always = allow later {tool_name} calls with the same risk ({risk}) inside the "
        "workspace, until /new or /clear."
    )


def _cut(lines: list[str], what: str) -> str:
    shown = lines[:MAX_SHOWN_LINES]
    text = "\n".join(shown)
    if len(lines) > len(shown):
        text += f"\n… [{len(lines) - len(shown)} more {what} not shown]"
    return text


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    except OSError:
        return None


def describe_call(tool_name: str, arguments: dict[str, Any], workspace: Path | None) -> str:
    """The call as text a person reads: a diff or preview for writes and edits, else JSON."""
    path = arguments.get("path") or arguments.get("file_path")
    if tool_name == "write" and isinstance(path, str) and isinstance(arguments.get("content"), str):
        content: str = arguments["content"]
        target = Path(path) if workspace is None else workspace / Path(path).expanduser()
        old = _read(target)
        if old is None:
            lines = content.splitlines()
            count = f"{len(lines)} line{'' if len(lines) == 1 else 's'}"
            return f"new file {path} ({count})\n" + _cut(lines, "lines")
        diff = list(
            difflib.unified_diff(
                old.splitlines(),
                content.splitlines(),
                f"{path} (now)",
                f"{path} (new)",
                lineterm="",
            )
        )
        return f"overwrite {path}\n" + (_cut(diff, "diff lines") if diff else "(no change)")
    old_text, new_text = arguments.get("old_text"), arguments.get("new_text")
    if tool_name == "edit" and isinstance(old_text, str) and isinstance(new_text, str):
        diff = list(
            difflib.unified_diff(
                old_text.splitlines(), new_text.splitlines(), "before", "after", lineterm=""
            )
        )
        return f"edit {path}\n" + _cut(diff, "diff lines")
    pretty = json.dumps(arguments, ensure_ascii=False, indent=2)
    lines = [line for raw in pretty.splitlines() for line in raw.replace("\\n", "\n").splitlines()]
    return _cut(lines, "lines")


class ApprovalScreen(ModalScreen[str]):
    """Dismisses with "yes", "no" or "always"."""

    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; }
    ApprovalScreen > Vertical { width: 80%; max-width: 100; height: auto; max-height: 100%;
                                border: thick $warning; background: $surface; padding: 1 2; }
    ApprovalScreen .reason { color: $warning; margin-bottom: 1; }
    ApprovalScreen .call { background: $boost; padding: 0 1; margin-bottom: 1; height: auto;
                           max-height: 14; }
    ApprovalScreen Horizontal { height: auto; align: center middle; }
    ApprovalScreen Button { margin: 0 1; }
    ApprovalScreen .hint { color: $text-muted; margin-top: 1; }
    ApprovalScreen.-small > Vertical { width: 100%; padding: 0 1; border: round $warning; }
    ApprovalScreen.-small .reason { margin-bottom: 0; }
    ApprovalScreen.-small .call { margin-bottom: 0; }
    ApprovalScreen.-small Button { min-width: 4; margin: 0 1 0 0; }
    ApprovalScreen.-small .hint { margin-top: 0; }
    """

    AUTO_FOCUS = "#no"  # Enter typed by habit must never approve a dangerous call

    BINDINGS = [
        Binding("y", "answer('yes')", "Yes"),
        Binding("n,escape", "answer('no')", "No"),
        Binding("a", "answer('always')", "Always"),
    ]

    def __init__(
        self,
        tool_name: str,
        arguments: dict[str, Any],
        reason: str,
        always_covers: str = "",
        *,
        hint: str | None = None,
        workspace: Path | None = None,
        preview: str = "",
    ) -> None:
        super().__init__()
        self.tool_name = tool_name
        self.arguments = arguments
        self.reason = reason
        self.always_covers = always_covers
        self.hint = hint or (
            f"Always = allow {always_covers}, until /new or /clear." if always_covers else ""
        )
        self.workspace = workspace
        self.preview = preview  # the core's diff of a write/edit against the file as it is

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Allow {self.tool_name}?", style="bold"))
            yield Static(Text(self.reason), classes="reason")
            with VerticalScroll(classes="call"):
                shown = self.preview or describe_call(
                    self.tool_name, self.arguments, self.workspace
                )
                yield Static(Text(shown))
            with Horizontal():
                yield Button("Yes (y)", id="yes", variant="success")
                yield Button("No (n)", id="no", variant="error")
                yield Button("Always (a)", id="always", variant="warning")
            if self.hint:
                yield Static(Text(self.hint), classes="hint")

    def on_resize(self, event: events.Resize) -> None:
        """Small terminals: flat buttons, and the call area gets what is left (it scrolls)."""
        small = event.size.height < 24 or event.size.width < 60
        self.set_class(small, "-small")
        for button in self.query(Button):  # compact: one row, label kept (a variant's own
            button.compact = small  # border rules outrank `border: none` in our CSS)
        fixed = 8 if small else 14
        self.query_one(".call").styles.max_height = max(2, min(14, event.size.height - fixed))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "no")

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
