"""The one Markdown parser configuration of the TUI: answers (drawn by Rich) and pages (Textual's
Markdown widget) are parsed alike.

Raw HTML is off: `List<String>`, `<module>` in a traceback, `x<y and y>z` or an XML snippet are
text, shown as written (with HTML on, markdown-it makes them HTML tokens, which neither renderer
draws: they vanished from the screen). Tables and ~~strikethrough~~ are on, as in Rich's default.
"""

from __future__ import annotations

from markdown_it import MarkdownIt


def tui_markdown_parser() -> MarkdownIt:
    """A markdown-it parser for what the TUI shows (a new one: Textual calls this per parse)."""
    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
