"""What a note says about itself: YAML frontmatter (name, description, tags, date) and its date.

The frontmatter block is blanked out of the text that gets chunked (line numbers unchanged), and
its fields are indexed separately. A note's date is the frontmatter `date`, else the first
`YYYY-MM-DD` in its path (`memory/2025-01-02.md`, `memory/2025-01-02/topic.md`).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import dataclass

import yaml

log = logging.getLogger(__name__)

_OPEN = re.compile(r"\A\ufeff?---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
_PATH_DATE = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)")


@dataclass(frozen=True, slots=True)
class NoteInfo:
    """Frontmatter fields of one note (all optional)."""

    name: str = ""
    description: str = ""
    tags: tuple[str, ...] = ()
    date: str = ""

    def searchable_text(self) -> str:
        """The fields as one text for the keyword side's weighted `title` field."""
        return "\n".join(
            part for part in (self.name, self.description, " ".join(self.tags)) if part
        )


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


def split_frontmatter(text: str, rel_path: str = "") -> tuple[NoteInfo, str]:
    """(the note's info, its text with the frontmatter lines blanked)."""
    opening = _OPEN.match(text)
    closing = _CLOSE.search(text, opening.end()) if opening else None
    if not opening or not closing:
        return NoteInfo(date=path_date(rel_path)), text
    block = text[opening.end() : closing.start()]
    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        log.info("%s: frontmatter is not valid YAML (%s); indexed as text", rel_path, exc)
        return NoteInfo(date=path_date(rel_path)), text
    if not isinstance(data, dict):
        return NoteInfo(date=path_date(rel_path)), text
    end = text.find("\n", closing.start())
    end = len(text) if end < 0 else end
    blanked = "\n" * text.count("\n", 0, end) + text[end:]
    info = NoteInfo(
        name=str(data.get("name") or data.get("title") or "").strip(),
        description=str(data.get("description") or "").strip(),
        tags=_tags(data.get("tags")),
        date=valid_date(data.get("date")) or path_date(rel_path),
    )
    return info, blanked
