"""How answers look: Rich's Markdown renderer with chat conventions, styled by the Textual theme.

Rich draws the Markdown (a maintained renderer on markdown-it); these elements only change
what a chat wants differently: a single newline is a line break, headings are flush left,
numbered items read "1.", a rule is a line, and code blocks sit on the theme's surface colour.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading, HorizontalRule, ListItem, Markdown
from rich.rule import Rule
from rich.segment import Segment
from rich.syntax import Syntax
from rich.theme import Theme as RichTheme
from textual.color import Color, ColorParseError

from remecli.ui.tui.widgets.markdown_parser import tui_markdown_parser


@dataclass(frozen=True)
class MarkdownLook:
    """How answers are drawn in one Textual theme: a console with its styles, code colours."""

    key: str
    console: Console
    code_theme: str
    code_background: str


class _Heading(Heading):
    LEVEL_ALIGN: ClassVar[dict[str, Any]] = dict.fromkeys(
        ("h1", "h2", "h3", "h4", "h5", "h6"), "left"
    )


class _Rule(HorizontalRule):
    new_line = True  # separated like any block (Rich adds a blank line after it instead)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Rule(style=console.get_style("markdown.hr", default="none"))


class _ListItem(ListItem):
    def render_number(
        self, console: Console, options: ConsoleOptions, number: int, last_number: int
    ) -> RenderResult:
        """`1. item`, the continuation lines indented under the text."""
        width = len(str(last_number)) + 2
        lines = console.render_lines(
            self.elements, options.update(width=options.max_width - width), style=self.style
        )
        style = console.get_style("markdown.item.number", default="none")
        label = Segment(f"{number}.".rjust(width - 1) + " ", style)
        indent = Segment(" " * width)
        for index, line in enumerate(lines):
            yield label if index == 0 else indent
            yield from line
            yield Segment.line()


class _CodeBlock(CodeBlock):
    background: str | None = None
    padding: tuple[int, int, int, int] = (1, 1, 1, 1)
    continues = False

    @classmethod
    def create(cls, markdown: Markdown, token: Any) -> _CodeBlock:
        block = cls((token.info or "").partition(" ")[0] or "text", markdown.code_theme)
        block.background = getattr(markdown, "code_background", None)
        # a block split across segments: no padding row where the parts meet
        top = 0 if token.meta.get("continued") else 1
        block.padding = (top, 1, 0 if token.meta.get("continues") else 1, 1)
        block.continues = bool(token.meta.get("continues"))
        return block

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text)
        # a part that continues keeps its blank last lines (they are inside the block)
        code = code.removesuffix("\n") if self.continues else code.rstrip()
        yield Syntax(
            code,
            self.lexer_name,
            theme=self.theme,
            word_wrap=True,  # long lines wrap: nothing is cut off
            padding=self.padding,
            background_color=self.background,
        )


class ChatMarkdown(Markdown):
    """Rich Markdown the way chat UIs show answers (parsed by `tui_markdown_parser`)."""

    elements: ClassVar[dict[str, Any]] = {
        **Markdown.elements,
        "heading_open": _Heading,
        "hr": _Rule,
        "list_item_open": _ListItem,
        "fence": _CodeBlock,
        "code_block": _CodeBlock,
    }

    def __init__(
        self, markup: str, look: MarkdownLook, *, continued: bool = False, continues: bool = False
    ) -> None:
        super().__init__("", code_theme=look.code_theme, hyperlinks=True)
        self.markup = markup  # parsed as everywhere in the TUI (Rich's own parser keeps HTML)
        self.parsed = tui_markdown_parser().parse(markup)
        self.code_background = look.code_background
        for token in self.parsed:  # a single newline is a line break
            for child in token.children or ():
                if child.type == "softbreak":
                    child.type = "hardbreak"
        fences = [token for token in self.parsed if token.type == "fence"]
        if fences and continued:
            fences[0].meta["continued"] = True
        if fences and continues:
            fences[-1].meta["continues"] = True


def _colour(variables: Mapping[str, str], name: str, background: Color) -> str:
    """A theme variable as an opaque hex colour Rich understands ("default" if unusable)."""
    try:
        colour = Color.parse(variables[name])
    except (KeyError, ColorParseError):
        return "default"
    return (background + colour).hex if colour.a < 1 else colour.hex


@lru_cache(maxsize=8)
def markdown_look(key: str, variables: tuple[tuple[str, str], ...], dark: bool) -> MarkdownLook:
    """The look for the theme `key` whose CSS variables are `variables` (one per theme)."""
    found = dict(variables)
    try:
        background = Color.parse(found.get("background", "#000000"))
    except ColorParseError:
        background = Color(0, 0, 0)

    def c(name: str) -> str:
        return _colour(found, name, background)

    code_background = c("panel")  # distinct from the page also in 256-colour terminals
    styles = {
        "markdown.h1": f"bold underline {c('primary')}",
        "markdown.h2": f"bold {c('primary')}",
        "markdown.h3": f"bold {c('secondary')}",
        "markdown.h4": "bold",
        "markdown.h5": "bold italic",
        "markdown.h6": "italic",
        "markdown.code": f"{c('accent')} on {code_background}",
        "markdown.link": f"underline {c('primary')}",
        "markdown.link_url": f"underline {c('primary')}",
        "markdown.block_quote": f"italic {c('foreground-muted')}",
        "markdown.item.bullet": f"bold {c('accent')}",
        "markdown.item.number": f"bold {c('accent')}",
        "markdown.hr": c("primary"),
        "markdown.table.border": c("foreground-muted"),
        "markdown.table.header": f"bold {c('primary')}",
    }
    console = Console(
        file=io.StringIO(),
        color_system="truecolor",
        force_terminal=True,
        legacy_windows=False,
        theme=RichTheme(styles),
    )
    return MarkdownLook(key, console, "monokai" if dark else "friendly", code_background)
