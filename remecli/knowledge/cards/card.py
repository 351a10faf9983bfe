"""Topic cards `memory/YYYY-MM-DD/<topic-slug>.md`: frontmatter, lookup and provenance fields.

A card holds one conversation's memory for one day. Its YAML frontmatter (`notes.frontmatter`)
carries `name`, `description`, `session_id`, `source_conversation`
(`"[[sessions/<id>.jsonl#L<a>-L<b>]]"`: the lines, for remecli), `date`, `project` (the project
the conversation was held in, when it had one), `transcript` (`"[[sessions/<id>.md#^L<a>]]"`:
the same first line in the transcript's readable page, a link Obsidian opens) and `tags`; the
code, not the model, sets `session_id`, `source_conversation`, `date`, `project` and
`transcript`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remecli.notes.files import read_memory_text
from remecli.notes.frontmatter import Note, read_frontmatter, write_frontmatter
from remecli.notes.layout import WorkingDir
from remecli.notes.links.parse import link_in_value
from remecli.notes.redact import redact_secrets

MIN_DESCRIPTION_CHARS = 12
CARD_FIELD_ORDER = (
    "name",
    "description",
    "session_id",
    "source_conversation",
    "date",
    "project",
    "transcript",
    "tags",
)
# Sections of a topic card, per language: (current state, timeline, details).
CARD_SECTIONS: dict[str, tuple[str, str, str]] = {
    "": ("Current state", "Timeline", "Details"),
    "zh": ("当前状态", "时间线", "细节"),
}
_LINE_RANGE = re.compile(r"L(\d+)-L(\d+)")
_SLUG_DROP = re.compile(r"[^\w]+", re.UNICODE)


def card_sections(language: str) -> tuple[str, str, str]:
    """Card section titles for `language` (English when unknown)."""
    return CARD_SECTIONS.get(language, CARD_SECTIONS[""])


class CardError(ValueError):
    """A card (or its frontmatter) the model must fix; the message says how."""


@dataclass
class Card:
    """A card file and its frontmatter (empty when unreadable)."""

    path: Path
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The card's title (its file stem when the frontmatter has none)."""
        return str(self.meta.get("name") or self.path.stem)

    @property
    def description(self) -> str:
        """The one-paragraph summary of the card."""
        return str(self.meta.get("description") or "").strip()


# ---------------------------------------------------------------- frontmatter
def read_card(text: str) -> Note:
    """`text` split at its frontmatter; raises CardError (saying how to fix it) when it opens a
    `---` block that is not valid frontmatter."""
    note = read_frontmatter(text)
    if note.problem:
        raise CardError(note.problem)
    return note


def join_frontmatter(meta: Mapping[str, object], body: str) -> str:
    """`---` YAML `---` followed by `body` (keys in card order, then the rest)."""
    return write_frontmatter(meta, body, CARD_FIELD_ORDER)


def read_meta(path: Path) -> dict[str, Any]:
    """Frontmatter of `path` ({} when absent, unreadable or invalid)."""
    try:
        return read_frontmatter(read_memory_text(path)).meta
    except (OSError, UnicodeError):
        return {}


# ---------------------------------------------------------------- places
def day_folder(working_dir: WorkingDir, day: dt.date) -> Path:
    """`memory/YYYY-MM-DD/`: the cards of `day`."""
    return working_dir.memory_dir / f"{day:%Y-%m-%d}"


def list_cards(working_dir: WorkingDir, day: dt.date) -> list[Card]:
    """The cards of `day`, sorted by file name."""
    folder = day_folder(working_dir, day)
    if not folder.is_dir():
        return []
    return [Card(p, read_meta(p)) for p in sorted(folder.glob("*.md")) if p.is_file()]


def find_session_card(working_dir: WorkingDir, day: dt.date, session_id: str) -> Path | None:
    """The card of conversation `session_id` on `day`, if one exists."""
    for card in list_cards(working_dir, day):
        if str(card.meta.get("session_id", "")) == session_id:
            return card.path
    return None


def slugify(text: str) -> str:
    """A file-name slug: lower case, words joined by `-`, letters of any script kept.

    Secrets are redacted first: a file name is stored (and listed) everywhere."""
    norm = unicodedata.normalize("NFKC", redact_secrets(text).text).strip().lower()
    slug = _SLUG_DROP.sub("-", norm.replace("_", "-")).strip("-")
    return slug[:80].rstrip("-")


def is_slug(stem: str) -> bool:
    """True when `stem` is already a slug (what `slugify` would make of it)."""
    return bool(stem) and slugify(stem) == stem


# ---------------------------------------------------------------- provenance
def source_link(session_id: str, lines: tuple[int, int] | None) -> str:
    """`[[sessions/<id>.jsonl#L<a>-L<b>]]` (without the range when unknown)."""
    anchor = f"#L{lines[0]}-L{lines[1]}" if lines else ""
    return f"[[sessions/{session_id}.jsonl{anchor}]]"


def transcript_page_link(session_id: str, lines: tuple[int, int] | None) -> str:
    """`[[sessions/<id>.md#^L<a>]]`: the first cited line as a block of the transcript's page
    (`remecli.conversation.transcript_page`), which Obsidian opens; the page without a range."""
    anchor = f"#^L{lines[0]}" if lines else ""
    return f"[[sessions/{session_id}.md{anchor}]]"


def source_range(link: object) -> tuple[int, int] | None:
    """The line range of a `source_conversation` link, None when it has none."""
    found = link_in_value(link)
    if found is None or not found.target.startswith("sessions/"):
        return None
    match = _LINE_RANGE.fullmatch(found.anchor)
    return (int(match.group(1)), int(match.group(2))) if match else None


def merged_range(
    old: tuple[int, int] | None, new: tuple[int, int] | None
) -> tuple[int, int] | None:
    """The smallest range covering both (either may be unknown)."""
    if old is None or new is None:
        return new or old
    return min(old[0], new[0]), max(old[1], new[1])


def apply_card_fields(
    text: str,
    *,
    session_id: str,
    day: dt.date,
    lines: tuple[int, int] | None,
    previous: str | None = None,
    project: str = "",
) -> str:
    """`text` with its frontmatter checked and the code-owned fields set; raises CardError.

    `name` and a real `description` are required; `tags` becomes a list of strings; the
    transcript range grows to cover what `previous` (the card before this change) covered
    (`transcript` links its first line in the readable page);
    `project` (the conversation's, "" when none) is set, else the one `previous` had is kept.
    """
    note = read_card(text)
    if not note.has_frontmatter:
        raise CardError(
            "A card starts with YAML frontmatter between `---` lines holding `name`, "
            "`description` and `tags`."
        )
    meta, body = dict(note.meta), note.body
    name = str(meta.get("name") or "").strip()
    description = str(meta.get("description") or "").strip()
    if not name:
        raise CardError("The frontmatter needs `name`: the topic of this card, in a few words.")
    if len(description) < MIN_DESCRIPTION_CHARS or description.lower() == name.lower():
        raise CardError(
            "The frontmatter needs `description`: one or two sentences summarizing what the "
            "card records (not just its name)."
        )
    old_range, old_meta = None, {}
    if previous is not None:
        old_meta = read_frontmatter(previous).meta
        old_range = source_range(old_meta.get("source_conversation"))
    meta["name"], meta["description"] = name, description
    meta["session_id"] = session_id
    cited = merged_range(old_range, lines)
    meta["source_conversation"] = source_link(session_id, cited)
    meta["date"] = f"{day:%Y-%m-%d}"
    meta.pop("project", None)  # the code's field: the model's own value is not kept
    if project or old_meta.get("project"):
        meta["project"] = project or str(old_meta["project"])
    meta["transcript"] = transcript_page_link(session_id, cited)
    meta["tags"] = _tags(meta.get("tags"))
    return join_frontmatter(meta, body)


def _tags(raw: object) -> list[str]:
    if raw is None:
        return []
    items: Iterable[object] = raw if isinstance(raw, list) else str(raw).split(",")
    tags: list[str] = []
    for item in items:
        tag = str(item).strip().lstrip("#")
        if tag and tag not in tags:
            tags.append(tag)
    return tags


# ---------------------------------------------------------------- transcripts
def _message_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(1-based JSONL line, message id) of each record of `path` that records a message."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            msg_id = _record_message_id(line)
            if msg_id is not None:
                yield number, msg_id


def transcript_line_range(path: Path, message_ids: Iterable[str]) -> tuple[int, int] | None:
    """1-based first and last JSONL line of `path` recording any of `message_ids`."""
    wanted = set(message_ids)
    first = last = 0
    try:
        for number, msg_id in _message_lines(path):
            if msg_id in wanted:
                first = first or number
                last = number
    except OSError:
        return None
    return (first, last) if first else None


def message_line_numbers(path: Path) -> dict[str, int]:
    """Message id -> the first 1-based JSONL line of `path` recording it ({} if unreadable)."""
    found: dict[str, int] = {}
    try:
        for number, msg_id in _message_lines(path):
            found.setdefault(msg_id, number)
    except OSError:
        return {}
    return found


def transcript_project(path: Path) -> str:
    """The project the conversation in transcript `path` was held in: the first record that
    names one ("" when none does, or the file cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if '"project"' not in line:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("project"):
                    return str(record["project"])
    except OSError:
        return ""
    return ""


def _record_message_id(line: str) -> str | None:
    """The message id a transcript `msg` or `blocks` record is about (None otherwise)."""
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("t") not in ("msg", "blocks"):
        return None
    msg = record.get("msg")
    found = msg.get("id") if isinstance(msg, dict) else record.get("msg_id")
    return found if isinstance(found, str) else None
