"""The scrolling conversation: user turns, answers, tool panels, errors and notices."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.tool_panel import ToolPanel

COLLAPSE_LINES = 20  # a longer user message (a paste) shows collapsed until clicked
HEAD_LINES = 3


class UserMessage(Static):
    """A user turn; a long one (a paste) shows collapsed: click to expand or collapse."""

    def __init__(self, text: str, *, queued: bool = False) -> None:
        self.text = text
        self.queued = queued
        self.collapsed = text.count("\n") + 1 >= COLLAPSE_LINES
        super().__init__(self._render_text(), classes="user")

    def _render_text(self) -> Text:
        lines = self.text.splitlines()
        if self.collapsed:
            shown = Text("\n".join(lines[:HEAD_LINES]))
            shown.append(f"\n[pasted {len(lines)} lines] (click to expand)", style="italic dim")
        else:
            shown = Text(self.text)
        if self.queued:
            shown.append("  · queued", style="italic dim")
        return shown

    def on_click(self) -> None:
        if self.text.count("\n") + 1 >= COLLAPSE_LINES:
            self.collapsed = not self.collapsed
            self.update(self._render_text())

    def set_queued(self, queued: bool) -> None:
        """Mark or unmark as waiting for the agent."""
        self.queued = queued
        self.update(self._render_text())


class ChatView(VerticalScroll):
    """Appends widgets and keeps the view pinned to the bottom while the user hasn't scrolled up."""

    DEFAULT_CSS = """
    ChatView { height: 1fr; padding: 0 1; }
    ChatView .user { background: $boost; padding: 0 1; margin: 0 0 1 0; border-left: thick $accent; }
    ChatView .notice { color: $text-muted; margin: 0 0 1 0; }
    ChatView .error { border: round $error; color: $error; padding: 0 1; margin: 0 0 1 0; }
    ChatView .welcome { color: $text-muted; margin: 0 0 1 0; }
    """

    can_focus = False

    def on_mount(self) -> None:
        self._place: tuple[Widget, float, Size] | None = None  # what the user scrolled to
        self.anchor()  # stay at the bottom as content grows, until the user scrolls up

    # A resize re-wraps every line above the view, so the same scroll offset shows other
    # text: the widget at the top of the view (and how far into it) is remembered and brought
    # back after a resize, unless the view follows the bottom.
    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        place = getattr(self, "_place", None)
        if place is None or place[2] == self.size:  # not a resize's own re-clamping
            self._place = self._top_place()

    def _top_place(self) -> tuple[Widget, float, Size] | None:
        for child in self.children:
            region = child.virtual_region
            if region.bottom > self.scroll_y:
                return child, self.scroll_y - region.y, self.size
        return None

    def on_resize(self) -> None:
        place = getattr(self, "_place", None)
        if place is None or place[2] == self.size:
            return
        if not self._anchor_released:  # following the bottom: Textual keeps it there
            self._place = None
            return
        self.call_after_refresh(self._back_to, place)

    def _back_to(self, place: tuple[Widget, float, Size]) -> None:
        widget, offset, _size = place
        if widget.is_attached:
            y = widget.virtual_region.y + min(offset, max(0, widget.outer_size.height - 1))
            self.scroll_to(y=y, animate=False, immediate=True, release_anchor=False)
        self._place = self._top_place()

    async def _add(self, widget: Widget) -> None:
        """Mount `widget` last, but above the messages still queued: what the running reply
        shows (its "Reply cancelled.", notices, tool panels) belongs before them."""
        queued = next((w for w in self.children if isinstance(w, UserMessage) and w.queued), None)
        await self.mount(widget, before=queued)

    async def add_user(self, text: str, *, queued: bool = False) -> Static:
        """A user turn (marked "queued" until the agent takes it); the view follows it."""
        widget = UserMessage(text, queued=queued)
        await self.mount(widget)  # last: after the messages queued before it
        self.anchor()  # back to the bottom even if the user had scrolled up
        return widget

    async def unmark_queued(self, text: str) -> None:
        """The agent took the queued message `text`."""
        for widget in self.query(UserMessage):
            if widget.queued and widget.text == text:
                widget.set_queued(False)
                return

    def last_user(self, text: str) -> Static | None:
        """The newest user turn saying `text`."""
        found = [w for w in self.query(UserMessage) if w.text == text]
        return found[-1] if found else None

    def scroll_by_key(self, where: str) -> None:
        """Keyboard scrolling: page_up, page_down, up, down, home, end (scrolling up lets go
        of the bottom; reaching the bottom again follows new content)."""
        if where in ("page_up", "up", "home"):
            self.release_anchor()
        {
            "page_up": self.scroll_page_up,
            "page_down": self.scroll_page_down,
            "up": self.scroll_up,
            "down": self.scroll_down,
            "home": self.scroll_home,
            "end": self.scroll_end,
        }[where](animate=False)

    async def add_assistant(self) -> AssistantMessage:
        """A new, empty answer to stream into."""
        message = AssistantMessage()
        await self._add(message)
        return message

    def release_drawings(self) -> None:
        """Idle: finished answers let go of their drawn lines, so a long conversation holds
        its text and not every line it ever drew (what is on screen is drawn again at once)."""
        for message in self.query(AssistantMessage):
            message.release_drawings()

    async def add_tool(self, call_id: str, name: str) -> ToolPanel:
        """A panel for a tool call."""
        panel = ToolPanel(call_id, name)
        await self._add(panel)
        return panel

    async def add_notice(self, text: str, classes: str = "notice") -> None:
        """A dim one-line notice (compaction, memory, …)."""
        await self._add(Static(Text(text), classes=classes))

    async def add_error(self, text: str) -> None:
        """An error panel that says what to do."""
        await self._add(Static(Text(f"✗ {text}"), classes="error"))
