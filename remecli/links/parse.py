"""Wikilinks and frontmatter of one Markdown note, read with markdown-it (code is never a link).

Forms: `[[path]]`, `[[path#L9-L12]]`, `[[path#Heading]]`, `[[path|alias]]`, `[[Note name]]`
and combinations (`[[target#anchor|alias]]`; `\\|` inside a table cell). Links inside code spans,
fenced or indented code are not links. Links in YAML frontmatter values (e.g.
`source_conversation: "[[sessions/<id>.jsonl#L1-L40]]"`) are links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

LINK_TEXT = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_FRONTMATTER_END = ("---", "...")
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~20x faster


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
    """What the graph keeps of a note: frontmatter `name`/`description` and its wikilinks."""

    name: str = ""
    description: str = ""
    links: list[WikiLink] = field(default_factory=list)


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


def split_frontmatter(text: str) -> tuple[list[str], str]:
    """(frontmatter lines without the fences, the body with those lines blanked, same numbering)."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        return [], text
    for number in range(1, len(lines)):
        if lines[number].rstrip("\r") in _FRONTMATTER_END:
            body = "\n" * (number + 1) + "\n".join(lines[number + 1 :])
            return [line.rstrip("\r") for line in lines[1:number]], body
    return [], text


def _frontmatter_fields(lines: list[str]) -> tuple[str, str]:
    try:
        data = yaml.load("\n".join(lines), Loader=_YAML_LOADER) if lines else None
    except yaml.YAMLError:
        return "", ""
    if not isinstance(data, dict):
        return "", ""
    name, description = data.get("name"), data.get("description")
    return (
        " ".join(str(name).split()) if isinstance(name, str | int | float) else "",
        " ".join(str(description).split()) if isinstance(description, str | int | float) else "",
    )


def parse_note(text: str) -> ParsedNote:
    """Frontmatter fields and every wikilink of `text`, in order, with 1-based lines."""
    front, body = split_frontmatter(text)
    name, description = _frontmatter_fields(front)
    links: list[WikiLink] = []
    for offset, line in enumerate(front):
        for match in LINK_TEXT.finditer(line):
            link = split_link(match.group(1), offset + 2)
            if link is not None:
                links.append(link)
    if "[[" in body:
        links.extend(_body_links(body))
    return ParsedNote(name=name, description=description, links=links)


def _regex_links(text: str, first_line: int) -> list[WikiLink]:
    links = []
    for number, line in enumerate(text.split("\n")):
        for match in LINK_TEXT.finditer(line):
            link = split_link(match.group(1), first_line + number)
            if link is not None:
                links.append(link)
    return links


def _may_hold_code(body: str) -> bool:
    """False when no code span, fence, escape or indented line can hide or change a link."""
    if "`" in body or "~~~" in body or "\\[" in body:
        return True
    return any(
        line.startswith(("    ", "\t")) or line.lstrip(" ").startswith("\t")
        for line in body.split("\n")
        if "[[" in line
    )


def _body_links(body: str) -> list[WikiLink]:
    if not _may_hold_code(body):  # the common case: the parser would find exactly these
        return _regex_links(body, 1)
    links: list[WikiLink] = []
    for token in _BLOCKS.parse(body):
        if token.map is None or "[[" not in token.content:
            continue
        first_line = token.map[0] + 1
        if token.type == "html_block":  # e.g. a generated block between HTML comments
            links.extend(_regex_links(token.content, first_line))
        elif token.type == "inline":
            links.extend(_inline_links(token.content, first_line))
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
