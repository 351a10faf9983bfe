"""Wikilinks and frontmatter of one Markdown note, read with markdown-it (code is never a link).

Forms: `[[path]]`, `[[path#L9-L12]]`, `[[path#Heading]]`, `[[path|alias]]`, `[[Note name]]`
and combinations (`[[target#anchor|alias]]`; `\\|` inside a table cell). Links inside code spans,
fenced or indented code are not links. Links in YAML frontmatter values (e.g.
`source_conversation: "[[sessions/<id>.jsonl#L1-L40]]"`) are links; the frontmatter is found by
`notes.frontmatter`. The one wikilink parser: other packages call `parse_note`, `body_links`,
`link_targets` (a section's targets) or `link_in_value` (one frontmatter value).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from remecli.notes.frontmatter import Note, read_frontmatter

LINK_TEXT = re.compile(r"\[\[([^\[\]\n]+?)\]\]")


@dataclass(frozen=True, slots=True)
class WikiLink:
    """One `[[…]]` in a note: what it names, where it points inside, how it is shown, its line."""

    target: str
    anchor: str = ""
    alias: str = ""
    line: int = 1

    @property
    def raw(self) -> str:
        """The link as it would be written (with `|` for an alias)."""
        text = self.target + (f"#{self.anchor}" if self.anchor else "")
        return f"[[{text}|{self.alias}]]" if self.alias else f"[[{text}]]"


@dataclass(slots=True)
class ParsedNote:
    """What the graph keeps of a note: frontmatter `name`/`description`/`status` (a digest
    node's: active, contradicted) and its wikilinks."""

    name: str = ""
    description: str = ""
    links: list[WikiLink] = field(default_factory=list)
    status: str = ""


def split_link(inner: str, line: int) -> WikiLink | None:
    """`target#anchor|alias` (the text between the brackets) as a WikiLink; None when empty."""
    text = inner.replace("\\|", "|")
    target, _, alias = text.partition("|")
    target, _, anchor = target.partition("#")
    target, anchor, alias = target.strip(), anchor.strip(), alias.strip()
    if not target and not anchor:
        return None
    return WikiLink(target=target, anchor=anchor, alias=alias, line=line)


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """Inline rule: `[[…]]` on one line becomes a `wikilink` token (before links and emphasis)."""
    start = state.pos
    if not state.src.startswith("[[", start):
        return False
    match = LINK_TEXT.match(state.src, start)
    if match is None:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = match.group(1)
    state.pos = match.end()
    return True


def _parsers() -> tuple[MarkdownIt, MarkdownIt]:
    """(block-level parser, inline parser): inline parsing runs only where a link may be."""
    blocks = MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])
    inline = MarkdownIt("commonmark")
    inline.inline.ruler.before("link", "wikilink", _wikilink_rule)
    return blocks, inline


_BLOCKS, _INLINE = _parsers()


def _field(meta: Mapping[str, object], key: str) -> str:
    value = meta.get(key)
    return " ".join(str(value).split()) if isinstance(value, str | int | float) else ""


def _frontmatter_links(note: Note) -> list[WikiLink]:
    """Links in frontmatter values (YAML, not Markdown: every `[[…]]` counts), with lines."""
    if not note.has_frontmatter or "[[" not in note.frontmatter:
        return []
    return _regex_links(note.frontmatter, 2)


def parse_note(text: str) -> ParsedNote:
    """Frontmatter fields and every wikilink of `text`, in order, with 1-based lines."""
    note = read_frontmatter(text)
    links = _frontmatter_links(note)
    if "[[" in note.body:
        links.extend(body_links(note.body, note.body_start_line))
    status = note.meta.get("status")
    return ParsedNote(
        name=_field(note.meta, "name"),
        description=_field(note.meta, "description"),
        links=links,
        status=status if isinstance(status, str) else "",
    )


def link_in_value(value: object) -> WikiLink | None:
    """The wikilink a frontmatter value starts with (`"[[sessions/a.jsonl#L1-L40]]"`), or None."""
    match = LINK_TEXT.match(str(value or "").strip())
    return split_link(match.group(1), 1) if match else None


def link_targets(markdown: str) -> list[str]:
    """The distinct targets of the wikilinks in Markdown text (no frontmatter), in order."""
    found = body_links(markdown) if "[[" in markdown else []
    return list(dict.fromkeys(link.target for link in found if link.target))


def _regex_links(text: str, first_line: int) -> list[WikiLink]:
    links = []
    for number, line in enumerate(text.split("\n")):
        for match in LINK_TEXT.finditer(line):
            link = split_link(match.group(1), first_line + number)
            if link is not None:
                links.append(link)
    return links


_TABLE_DELIMITER = re.compile(r"^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|?)+[ \t]*$")


def _may_hold_code(body: str) -> bool:
    """False when no code span, fence, escape, indented line or table can hide or change a link."""
    if "`" in body or "~~~" in body or "\\[" in body:
        return True
    if "|" in body and any(
        "|" in line and _TABLE_DELIMITER.match(line) for line in body.split("\n")
    ):
        return True  # table cells split at unescaped pipes
    return any(
        line.startswith(("    ", "\t")) or line.lstrip(" ").startswith("\t")
        for line in body.split("\n")
        if "[[" in line
    )


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HTML_START = re.compile(r"^ {0,3}<(!--|pre|script|style|textarea)(?=[\s>]|$|-)", re.IGNORECASE)
_HTML_ENDS = {"!--": "-->", "pre": "</pre>", "script": "</script>", "style": "</style>"}
_HTML_ENDS["textarea"] = "</textarea>"


def top_level_chunks(body: str) -> list[tuple[int, str]]:
    """(first line, text) of runs of lines that no Markdown block can span.

    A run ends before a non-blank, non-indented line that follows a blank line outside a
    fenced code block: no container (list, quote, code) continues across that point, so each
    run parses on its own exactly as it does inside the whole note.
    """
    lines = body.split("\n")
    chunks: list[tuple[int, str]] = []
    start, fence, blank_before = 0, "", False
    html_end = ""  # an HTML block that blank lines do not end (<!-- …, <pre>, <script>, …)
    for number, line in enumerate(lines):
        opening = _FENCE.match(line)
        if html_end:
            if html_end in line.lower():
                html_end = ""
        elif fence:
            marker = opening.group(1) if opening else ""
            closes = marker[:1] == fence[0] and len(marker) >= len(fence)
            if closes and not line.strip().strip(fence[0]):
                fence = ""
        else:
            if blank_before and line.strip() and line[:1] not in (" ", "\t") and number > start:
                chunks.append((start + 1, "\n".join(lines[start:number])))
                start = number
            if opening:
                fence = opening.group(1)
            html = _HTML_START.match(line)
            if html and _HTML_ENDS[html.group(1).lower()] not in line.lower()[html.end() :]:
                html_end = _HTML_ENDS[html.group(1).lower()]
        blank_before = not line.strip()
    chunks.append((start + 1, "\n".join(lines[start:])))
    return chunks


def body_links(body: str, first_line: int = 1) -> list[WikiLink]:
    """The wikilinks of Markdown text (no frontmatter) whose first line is `first_line`: what
    `markdown_links` finds, parsing with markdown-it only the runs where code may hide a link."""
    links: list[WikiLink] = []
    for start, chunk in top_level_chunks(body):
        if "[[" not in chunk:
            continue
        if not _may_hold_code(chunk):  # the common case: the parser would find exactly these
            links.extend(_regex_links(chunk, first_line + start - 1))
        else:
            links.extend(markdown_links(chunk, first_line + start - 1))
    return links


def markdown_links(text: str, first_line: int = 1) -> list[WikiLink]:
    """Links of Markdown `text` (whose first line is `first_line`) by one full markdown-it parse."""
    links: list[WikiLink] = []
    for token in _BLOCKS.parse(text):
        if token.map is None or "[[" not in token.content:
            continue
        line = first_line + token.map[0]
        if token.type == "html_block":  # e.g. a generated block between HTML comments
            links.extend(_regex_links(token.content, line))
        elif token.type == "inline":
            links.extend(_inline_links(token.content, line))
    return links


def _inline_links(content: str, first_line: int) -> list[WikiLink]:
    if "`" not in content and "\\" not in content:
        return _regex_links(content, first_line)
    links: list[WikiLink] = []
    line = first_line
    tokens: list[Token] = []
    _INLINE.inline.parse(content, _INLINE, {}, tokens)
    for child in tokens:
        if child.type in ("softbreak", "hardbreak"):
            line += 1
        elif child.type == "wikilink":
            link = split_link(child.content, line)
            if link is not None:
                links.append(link)
    return links
