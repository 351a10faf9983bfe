"""The prompt: multi-line text, Enter sends, Ctrl+J adds a newline, ↑/↓ history.

(Alt+Enter and Shift+Enter also add a newline where the terminal reports them distinctly; many
terminals send them as a plain Enter, so Ctrl+J is the documented key.)"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from remecli.notes.atomic_write import atomic_write_text
from remecli.ui.tui import early_keys

HISTORY_LIMIT = 1_000
PASTE_COLLAPSE_LINES = 20  # a paste this long shows as one "[pasted N lines]" placeholder


def normalize_line_ends(text: str) -> str:
    """`text` with CRLF and lone CR line ends turned into LF (terminals paste either)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


class InputHistory:
    """Submitted lines, persisted as JSON lines so they survive restarts."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: list[str] = []
        if path is not None and path.is_file():
            for line in _read_lines(path):
                try:
                    self.entries.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
        self.entries = self.entries[-HISTORY_LIMIT:]
        self._typed: list[str] = []  # lines added in the current conversation

    def add(self, text: str) -> None:
        """Remember `text` (consecutive duplicates are kept once)."""
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        self._typed.append(text)
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                with os.fdopen(fd, "a", encoding="utf-8") as fh:  # what was typed: private
                    fh.write(_stored(text) + "\n")
            except OSError:  # history is a convenience: never let it break the prompt
                self.path = None

    def mark_conversation(self) -> None:
        """A new conversation starts: what is typed from now on belongs to it."""
        self._typed = []

    def forget_conversation(self) -> int:
        """Remove what was typed in the current conversation (from memory and from the file,
        rewritten atomically); returns how many lines were removed."""
        typed, self._typed = self._typed, []
        for text in reversed(typed):
            if text in self.entries:
                del self.entries[len(self.entries) - 1 - self.entries[::-1].index(text)]
        if self.path is None or not typed or not self.path.is_file():
            return len(typed)
        lines = _read_lines(self.path)
        for text in reversed(typed):
            encoded = _stored(text)
            for i in range(len(lines) - 1, -1, -1):
                if lines[i] == encoded:
                    del lines[i]
                    break
        try:
            atomic_write_text(self.path, "".join(line + "\n" for line in lines), new_mode=0o600)
        except OSError:
            self.path = None
        return len(typed)


def _stored(text: str) -> str:
    """A typed line as the history file keeps it: JSON, secrets redacted (the prompt's own
    history in memory keeps what was typed until remecli exits)."""
    from remecli.notes.redact import redact_text  # its patterns compile at the first line kept

    return json.dumps(redact_text(text), ensure_ascii=False)


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


class ChatInput(TextArea):
    """A TextArea that submits on Enter and walks the input history on ↑/↓."""

    DEFAULT_CSS = """
    ChatInput { height: auto; max-height: 10; min-height: 3; border: round $accent; }
    ChatInput:focus { border: round $primary; }
    """

    class Submitted(Message):
        """The user pressed Enter with this text."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    class Edited(Message):
        """The text changed (drives slash-command autocomplete)."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    def __init__(self, history: InputHistory, **kwargs) -> None:
        super().__init__(
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder="Message ReMe…  (/ for commands, Ctrl+J for a new line)",
            **kwargs,
        )
        self.input_history = history
        self.completion_menu: Any = None  # the CommandMenu to steer with ↑/↓ while it is open
        self._browse: int | None = None
        self._draft = ""
        self.pastes: dict[str, str] = {}  # placeholder -> the pasted text it stands for

    async def _on_paste(self, event: events.Paste) -> None:
        """Insert a paste once, line ends made `\\n`; a long one is kept aside and shown as
        "[pasted N lines]" (sent in full). TextArea's own handler never runs as well."""
        event.stop()
        event.prevent_default()
        if self.read_only:
            return
        text = normalize_line_ends(event.text)
        lines = len(text.splitlines())
        if lines >= PASTE_COLLAPSE_LINES:
            placeholder = f"[pasted {lines} lines]"
            n = 1
            while placeholder in self.pastes:
                n += 1
                placeholder = f"[pasted {lines} lines #{n}]"
            self.pastes[placeholder] = text
            text = placeholder
        result = self.replace(text, *self.selection)
        self.move_cursor(result.end_location)
        self.focus()

    def on_mount(self) -> None:
        for line in early_keys.take_lines():  # sent while remecli started: first, one by one
            self._send(line)
        if self.app.animation_level == "none":  # TEXTUAL_ANIMATIONS=none: a steady cursor
            self.cursor_blink = False

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if event.key in ("ctrl+j", "alt+enter", "shift+enter"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        menu = self.completion_menu
        if event.key in ("up", "down") and menu is not None and menu.is_open:
            event.stop()
            event.prevent_default()
            if event.key == "up":
                menu.action_cursor_up()
            else:
                menu.action_cursor_down()
            return
        if event.key == "up" and self.cursor_at_first_line and self.input_history.entries:
            event.stop()
            event.prevent_default()
            self._recall(-1)
            return
        if event.key == "down" and self.cursor_at_last_line and self._browse is not None:
            event.stop()
            event.prevent_default()
            self._recall(+1)
            return
        await super()._on_key(event)

    def _recall(self, step: int) -> None:
        entries = self.input_history.entries
        if self._browse is None:
            self._draft = self.text
            self._browse = len(entries)
        self._browse = max(0, min(len(entries), self._browse + step))
        text = entries[self._browse] if self._browse < len(entries) else self._draft
        if self._browse == len(entries):
            self._browse = None
        self.load_text(text)
        self.move_cursor(self.document.end)

    def submit(self) -> None:
        """Send the current text (if any, pastes expanded) and clear the box."""
        text = self.text.strip()
        if not text:
            return
        for placeholder, pasted in self.pastes.items():
            text = text.replace(placeholder, pasted)
        text = text.strip()  # a pasted block's last line end too
        self.pastes.clear()
        self._browse = None
        self.load_text("")
        self._send(text)

    def _send(self, text: str) -> None:
        self.input_history.add(text)
        self.post_message(self.Submitted(text))

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self.post_message(self.Edited(self.text))
