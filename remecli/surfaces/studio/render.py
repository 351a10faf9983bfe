"""Notes as safe HTML, rendered on the server with markdown-it (raw HTML is escaped, never
passed through; markdown-it refuses `javascript:` and other unsafe link schemes).

Wikilinks (every form the link parser reads: `[[path]]`, `[[path#L9-L12]]`, `[[path#Heading]]`,
`[[Note name|alias]]`) become links to the note they resolve to (`resolve(target)`), or are
marked dangling. Every block carries `data-line` (its 1-based line in the file) so a search hit
can open the note at its line.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Callable, Sequence
from typing import TypedDict
from urllib.parse import quote, urlencode

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from remecli.notes.frontmatter import read_frontmatter
from remecli.notes.links.parse import LINK_TEXT, WikiLink, split_link

Resolve = Callable[[str], str | None]


class RenderedField(TypedDict):
    """A frontmatter field as the page shows it: its key, its value as HTML (links resolved)."""

    key: str
    html: str


class Rendered(TypedDict):
    """A note as the page shows it: its fields, its body as HTML, what is wrong with it."""

    fields: list[RenderedField]
    html: str
    problem: str


LINE_ANCHOR = re.compile(r"^L(\d+)(?:-L?\d+)?$")
MAX_FIELD_CHARS = 500


def note_href(path: str, anchor: str = "") -> str:
    """The Studio address of a note (`#/note/<path>`), at a line or heading when `anchor` says."""
    href = "#/note/" + quote(path, safe="/")
    line = LINE_ANCHOR.match(anchor)
    if line:
        return f"{href}?line={line.group(1)}"
    if anchor:
        return f"{href}?heading={quote(anchor, safe='')}"
    return href


def new_note_path(target: str) -> str:
    """Where a note that `[[target]]` would resolve to can be created: the target itself when
    it is a path (`.md` added), else a wiki page named after it (`digest/wiki/<slug>.md`,
    found by its stem, as the link resolver matches names: case, spaces and `-` alike)."""
    path = target.strip().lstrip("/")
    if "/" in path or path.lower().endswith(".md"):
        return path if path.lower().endswith(".md") else path + ".md"
    slug = re.sub(r"[^\w]+", "-", path.casefold()).strip("-") or "new-note"
    return f"digest/wiki/{slug}.md"


def new_note_href(target: str) -> str:
    """The Studio address that offers to create the note `[[target]]` is missing."""
    query = urlencode({"path": new_note_path(target), "name": target.strip()})
    return f"#/new?{query}"


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """`[[…]]` on one line becomes a `wikilink` token (before links and emphasis)."""
    if not state.src.startswith("[[", state.pos):
        return False
    match = LINK_TEXT.match(state.src, state.pos)
    if match is None:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = match.group(1)
    state.pos = match.end()
    return True


def _comment_rule(state: StateInline, silent: bool) -> bool:
    """`<!-- … -->` (a day page's `<!-- cards:auto -->` markers) is left out of the page, as a
    Markdown viewer leaves it out; other raw HTML stays escaped text."""
    if not state.src.startswith("<!--", state.pos):
        return False
    end = state.src.find("-->", state.pos + 4)
    if end < 0:
        return False
    if not silent:
        state.push("html_comment", "", 0)
    state.pos = end + 3
    return True


def _link_html(link: WikiLink | None, raw: str, resolve: Resolve, creatable: bool) -> str:
    """A wikilink as an `<a>`: to its note, or (dangling) to a form creating it, or, when
    nothing may be created (a read-only server), to the missing note's page."""
    if link is None:
        return html.escape(f"[[{raw}]]")
    shown = html.escape(link.alias or link.target + (f"#{link.anchor}" if link.anchor else ""))
    target = resolve(link.target) if link.target else None
    if target is None:
        missing = f"nothing is named {link.target!r} yet"
        if creatable:
            title, href = f"{missing}: click to create it", new_note_href(link.target)
        else:
            title, href = missing, note_href(new_note_path(link.target))
        title, href = html.escape(title, quote=True), html.escape(href, quote=True)
        return f'<a class="wikilink dangling" href="{href}" title="{title}">{shown}</a>'
    href = html.escape(note_href(target, link.anchor), quote=True)
    return f'<a class="wikilink" href="{href}" data-path="{html.escape(target, quote=True)}">{shown}</a>'


def _render_wikilink(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    raw = tokens[idx].content
    return _link_html(split_link(raw, 1), raw, env["resolve"], env.get("creatable", True))


def _line_numbers(state: StateCore) -> None:
    """`data-line` (1-based, in the file) on every opening block token that knows its lines."""
    first = int(state.env.get("first_line", 1))
    for token in state.tokens:
        if token.map is not None and token.nesting >= 0:
            token.attrSet("data-line", str(token.map[0] + first))


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(
        ["table", "strikethrough"]  # a superseded claim is struck through (notes/claims)
    )
    parser.inline.ruler.before("link", "wikilink", _wikilink_rule)
    parser.inline.ruler.before("link", "html_comment", _comment_rule)
    parser.core.ruler.push("line_numbers", _line_numbers)
    parser.add_render_rule("wikilink", _render_wikilink)
    parser.add_render_rule("html_comment", lambda *_: "")
    return parser


_PARSER = _parser()


def render_markdown(
    text: str, resolve: Resolve, first_line: int = 1, *, creatable: bool = True
) -> str:
    """Markdown `text` (no frontmatter) as HTML; its first line is line `first_line` of the file
    (`creatable` False: a dangling link leads to the missing note, not to a form creating it)."""
    env = {"resolve": resolve, "first_line": first_line, "creatable": creatable}
    return str(_PARSER.render(text, env))


def _field_text(value: object) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(_field_text(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_field_text(v)}" for k, v in value.items())
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return "" if value is None else str(value)


def _field_html(value: object, resolve: Resolve, creatable: bool) -> str:
    text = _field_text(value)[:MAX_FIELD_CHARS]
    parts: list[str] = []
    last = 0
    for match in LINK_TEXT.finditer(text):
        parts.append(html.escape(text[last : match.start()]))
        link = split_link(match.group(1), 1)
        parts.append(_link_html(link, match.group(1), resolve, creatable))
        last = match.end()
    parts.append(html.escape(text[last:]))
    return "".join(parts)


def render_note(text: str, resolve: Resolve, *, creatable: bool = True) -> Rendered:
    """`{"fields": [{"key", "html"}], "html", "problem"}` of a Markdown note (`creatable`:
    see `render_markdown`)."""
    note = read_frontmatter(text)
    fields = [
        RenderedField(key=str(key), html=_field_html(value, resolve, creatable))
        for key, value in note.meta.items()
    ]
    return Rendered(
        fields=fields,
        html=render_markdown(note.body, resolve, note.body_start_line, creatable=creatable),
        problem=note.problem,
    )


def render_plain(text: str, first_line: int = 1) -> str:
    """Any other text file as numbered lines (`data-line` on each), escaped."""
    rows = [
        f'<li data-line="{number}" value="{number}">{html.escape(line) or "&nbsp;"}</li>'
        for number, line in enumerate(text.splitlines(), start=first_line)
    ]
    return '<ol class="plain-lines">' + "".join(rows) + "</ol>"
