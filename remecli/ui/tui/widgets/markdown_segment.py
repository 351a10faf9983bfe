"""Markdown as one light widget: Rich draws it, Textual shows the lines as selectable Content.

Textual's `Markdown` widget mounts a widget per block (a list item is four), and mounting and
laying them out costs more than a core when an answer streams at a few thousand tokens a
second. A `MarkdownSegment` is a single widget: Rich's Markdown renderer (a maintained
renderer on markdown-it) draws the source at the widget's width, once per width and theme, and
the lines become Textual `Content`, so selection, copying and the selection highlight work as
in any text widget.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.content import Content
from textual.css.styles import RulesMap
from textual.geometry import NULL_SIZE
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widget import Widget, _RenderCache

if TYPE_CHECKING:
    from remecli.ui.tui.widgets.markdown_look import MarkdownLook

CACHED_WIDTHS = 2  # renders kept per segment (the current width and the one before a resize)


class MarkdownVisual(Visual):
    """`source` drawn by Rich at a given width (cached), rendered through `Content`.
    `continued` / `continues`: it starts / ends inside a code block split across segments."""

    def __init__(
        self, source: str, look: MarkdownLook, *, continued: bool = False, continues: bool = False
    ) -> None:
        self.source = source
        self.look = look
        self.continued = continued
        self.continues = continues
        self.draw_seconds = 0.0  # how long the last drawing took
        self._renders: dict[int, Content] = {}
        self._heights: dict[int, int] = {}  # rows at a width: kept when the drawings go

    def forget_drawings(self) -> None:
        """Drop the drawings (drawn again when shown); the heights stay, so the layout of a
        long conversation needs no drawing of what is off screen."""
        self._renders.clear()

    def content(self, width: int) -> Content:
        """The drawing at `width`: one line per row, each no wider than `width`."""
        if width not in self._renders:
            if len(self._renders) >= CACHED_WIDTHS:
                self._renders.pop(next(iter(self._renders)))
            self._renders[width] = self._draw(width)
        return self._renders[width]

    def _draw(self, width: int) -> Content:
        if not self.source.strip():
            return Content("")
        # Rich's Markdown (markdown-it, pygments) loads with the first answer, not at start
        from remecli.ui.tui.widgets.markdown_look import ChatMarkdown

        started = time.perf_counter()
        console = self.look.console
        options = console.options.update(width=width, height=None)
        rows = console.render_lines(
            ChatMarkdown(
                self.source, self.look, continued=self.continued, continues=self.continues
            ),
            options,
            pad=False,
        )
        lines = []
        for row in rows:
            text = Text(end="")
            for segment in row:
                if not segment.control:
                    text.append(segment.text, segment.style)
            lines.append(Content.from_rich_text(text, console))
        self.draw_seconds = time.perf_counter() - started
        return Content("\n").join(lines)

    def plain(self, width: int) -> str:
        """The text as drawn at `width`, without the padding Rich adds to the right."""
        return "\n".join(line.rstrip() for line in self.content(width).plain.split("\n"))

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        return self.content(width).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        if width not in self._heights:
            if len(self._heights) >= CACHED_WIDTHS:
                self._heights.pop(next(iter(self._heights)))
            drawn = self.content(width)
            self._heights[width] = drawn.plain.count("\n") + 1 if drawn.plain else 0
        return self._heights[width]


class MarkdownSegment(Widget):
    """A piece of Markdown shown as one selectable widget; `update` replaces its source.

    `source` is the answer's own text; a segment cut out of a long code block also has a
    `prefix` (the fence's opening line) or `suffix` (its closing marker) so it draws alone.
    """

    DEFAULT_CSS = "MarkdownSegment { height: auto; }"

    def __init__(self, source: str = "", *, prefix: str = "") -> None:
        super().__init__()
        self.source = source
        self.prefix = prefix
        self.suffix = ""
        self.references = ""
        self._visual: MarkdownVisual | None = None
        self._draw_seconds = 0.0

    @property
    def draw_seconds(self) -> float:
        """How long drawing this segment last took (0 before the first drawing)."""
        drawn = self._visual.draw_seconds if self._visual is not None else 0.0
        return drawn or self._draw_seconds

    def update(self, source: str, *, suffix: str = "") -> None:
        """Show `source` (closed by `suffix`) instead, re-drawn at the next refresh."""
        self.source = source
        self.suffix = suffix
        self._redraw()

    def set_references(self, references: str) -> None:
        """Link reference definitions of the whole answer, drawn with (not shown in) this part."""
        if references != self.references:
            self.references = references
            self._redraw()

    def _redraw(self) -> None:
        """Drop the drawing (keeping how long it took) and draw again at the next refresh."""
        self._draw_seconds = self.draw_seconds
        self._visual = None
        self.refresh(layout=True)

    def render(self) -> MarkdownVisual:
        look = self._look()
        if self._visual is None or self._visual.look is not look:
            references = f"\n\n{self.references}\n" if self.references else ""
            self._visual = MarkdownVisual(
                self.prefix + self.source + self.suffix + references,
                look,
                continued=bool(self.prefix),
                continues=bool(self.suffix),
            )
        return self._visual

    def release_drawing(self) -> None:
        """Let go of the drawn lines (Rich's drawing and Textual's rendered strips): a finished
        answer then keeps only its text and heights, and is drawn again when it is shown."""
        if self._visual is not None:
            self._visual.forget_drawings()
        # Textual keeps every rendered line of a widget until it is rendered again; its public
        # refresh() only marks them stale, so the strips are dropped here (re-rendered on paint)
        self._render_cache = _RenderCache(NULL_SIZE, [])
        self.refresh()

    def _look(self) -> MarkdownLook:
        from remecli.ui.tui.widgets.markdown_look import markdown_look

        app = self.app
        variables = tuple(sorted(app.theme_variables.items()))
        return markdown_look(app.theme, variables, app.current_theme.dark)

    def plain_text(self) -> str:
        """What the segment shows, as text (at its current width)."""
        return self.render().plain(max(self.content_region.width, 1))

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self.plain_text()), "\n"

    def on_click(self, event: events.Click) -> None:
        """A click on a link opens it (as Textual's Markdown widget does)."""
        link = event.style.link
        if link:
            self.app.open_url(link)
