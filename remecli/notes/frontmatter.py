"""The one reader and writer of YAML frontmatter, and what a note says about itself.

`read_frontmatter(text)` finds the block with markdown-it's `front_matter` plugin (mdit-py-plugins:
a `---` line first, closed by `---` or `...`), loads it with PyYAML (libyaml when available) and
returns one `Note`: the mapping, the body after the closing line and the body's first line number
(1-based, so search hits and links cite the lines of the file). It never raises: a file without a
block, with an unclosed block, an empty one, or YAML that is invalid or not a mapping is all body
(`problem` says why a block was not taken). A byte-order mark and CRLF line ends are accepted.
`write_frontmatter` writes a block back. A note's date is the frontmatter `date`, else the first
`YYYY-MM-DD` in its path (`memory/2025-01-02.md`, `memory/2025-01-02/topic.md`).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from mdit_py_plugins.front_matter import front_matter_plugin

log = logging.getLogger(__name__)

FENCE = "---"
NOT_CLOSED = "The frontmatter is not closed: add a line `---` after it."
NOT_A_MAPPING = "The frontmatter must be a YAML mapping (`key: value` lines)."
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~20x faster
_FIRST_LINES = 16  # lines handed to the parser first; 4x more until the block closes or text ends
_PATH_DATE = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)")
_OPENING = re.compile(r"\A\ufeff?---[ \t]*\r?(?:\n|\Z)")


def _rest_is_body(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule after `front_matter`: the rest is body, left to the other parsers."""
    state.line = end
    return True


def _frontmatter_parser() -> MarkdownIt:
    parser = MarkdownIt("zero").use(front_matter_plugin).disable("inline")
    parser.block.ruler.before("paragraph", "rest_is_body", _rest_is_body)
    return parser


_PARSER = _frontmatter_parser()


@dataclass(frozen=True, slots=True)
class Note:
    """A note split at its frontmatter: `meta` ({} when none) and the `body` after it.

    `body_start_line` is the 1-based line of the file where `body` begins (1: no frontmatter);
    `frontmatter` is the YAML text between the fences; `problem` says why a block that opens
    with `---` was read as body (not closed, invalid YAML, not a mapping), "" otherwise.
    """

    meta: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    body_start_line: int = 1
    frontmatter: str = ""
    problem: str = ""

    @property
    def has_frontmatter(self) -> bool:
        """True when a frontmatter mapping was found (the body starts after it)."""
        return self.body_start_line > 1

    def blanked(self) -> str:
        """The whole text with the frontmatter lines emptied: same line numbers as the file."""
        return "\n" * (self.body_start_line - 1) + self.body


@dataclass(frozen=True, slots=True)
class NoteInfo:
    """Frontmatter fields of one note that search indexes and shows (all optional)."""

    name: str = ""
    description: str = ""
    tags: tuple[str, ...] = ()
    date: str = ""
    project: str = ""  # the project it was written in (`project:`), "" when none


def _block(text: str) -> tuple[str, int] | None:
    """(YAML text, lines up to and including the closing fence) of the block at the top of
    `text`, None when the block is not closed. Only the first lines are parsed: the plugin
    stops at the first closing line, so a block closed within them is the block of the file."""
    lines = _FIRST_LINES
    while True:
        cut = _after_line(text, lines)
        head = text[:cut].lstrip("\ufeff").replace("\r", "")
        tokens = _PARSER.parse(head)
        if tokens and tokens[0].type == "front_matter" and tokens[0].map:
            return tokens[0].content, tokens[0].map[1]
        if cut >= len(text):
            return None
        lines *= 4


def _after_line(text: str, count: int) -> int:
    """The offset just after the `count`th newline of `text` (its length when it has fewer)."""
    position = -1
    for _ in range(count):
        position = text.find("\n", position + 1)
        if position < 0:
            return len(text)
    return position + 1


def read_frontmatter(text: str) -> Note:
    """`text` split at its YAML frontmatter; never raises (anything not valid is body)."""
    if not _OPENING.match(text):
        return Note(body=text)
    block = _block(text)
    if block is None:
        return Note(body=text, problem=NOT_CLOSED)
    source, fence_lines = block
    try:
        data = yaml.load(source, Loader=_YAML_LOADER) if source.strip() else None
    except Exception as exc:  # YAMLError, or a bad value such as date: 2025-13-45
        problem = f"The frontmatter is not valid YAML: {exc}".strip()
        return Note(body=text, frontmatter=source, problem=problem)
    if not isinstance(data, dict):
        problem = "" if data is None else NOT_A_MAPPING
        return Note(body=text, frontmatter=source, problem=problem)
    body = text[_after_line(text, fence_lines) :]
    return Note(data, body, fence_lines + 1, source)


def write_frontmatter(meta: Mapping[str, object], body: str, order: Iterable[str] = ()) -> str:
    """`---` YAML `---` then `body`: the keys named in `order` first, then the rest."""
    ordered = {key: meta[key] for key in order if key in meta}
    ordered.update({key: value for key, value in meta.items() if key not in ordered})
    dumped = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=1000)
    return f"{FENCE}\n{dumped}{FENCE}\n" + body.lstrip("\n")


def note_info(note: Note, rel_path: str = "") -> NoteInfo:
    """What search keeps of `note` (found at `rel_path`): name, description, tags, date and
    project."""
    meta = note.meta
    if not meta:
        return NoteInfo(date=path_date(rel_path))
    return NoteInfo(
        name=str(meta.get("name") or meta.get("title") or "").strip(),
        description=str(meta.get("description") or "").strip(),
        tags=_tags(meta.get("tags")),
        date=valid_date(meta.get("date")) or path_date(rel_path),
        project=_first_word(meta.get("project")),
    )


def _first_word(value: object) -> str:
    """A one-word field (`project:`) as text; of a list, its first item."""
    if isinstance(value, list | tuple):
        value = value[0] if value else ""
    return str(value or "").strip()


def valid_date(value: object) -> str:
    """`YYYY-MM-DD` of a date, datetime or date-like string; "" when it is none of these."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        match = _PATH_DATE.search(value)
        if match:
            try:
                return dt.date.fromisoformat(match.group(1)).isoformat()
            except ValueError:
                return ""
    return ""


def path_date(rel_path: str) -> str:
    """The first valid `YYYY-MM-DD` in a relative path, or ""."""
    for match in _PATH_DATE.finditer(rel_path):
        found = valid_date(match.group(1))
        if found:
            return found
    return ""


def _tags(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        items = re.split(r"[,\s]+", value)
    elif isinstance(value, list | tuple):
        items = [str(v) for v in value if v is not None]
    else:
        return ()
    return tuple(t.strip().lstrip("#") for t in items if t.strip().lstrip("#"))
