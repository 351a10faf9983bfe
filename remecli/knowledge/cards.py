"""Topic cards `memory/YYYY-MM-DD/<topic-slug>.md`: frontmatter, lookup and provenance fields.

A card holds one conversation's memory for one day. Its YAML frontmatter (parsed with PyYAML)
carries `name`, `description`, `session_id`, `source_conversation`
(`"[[sessions/<id>.jsonl#L<a>-L<b>]]"`), `date` and `tags`; the code, not the model, sets
`session_id`, `source_conversation` and `date`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from remecli.notes.layout import WorkingDir

FENCE = "---"
MIN_DESCRIPTION_CHARS = 12
CARD_FIELD_ORDER = ("name", "description", "session_id", "source_conversation", "date", "tags")
_SOURCE = re.compile(r"^\[\[sessions/(?P<sid>[^#\]|]+)\.jsonl(?:#L(?P<a>\d+)-L(?P<b>\d+))?")
_SLUG_DROP = re.compile(r"[^\w]+", re.UNICODE)


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
def split_frontmatter(text: str) -> tuple[dict[str, Any] | None, str]:
    """(frontmatter mapping or None when there is none, body). Raises CardError on bad YAML."""
    if not text.startswith(FENCE):
        return None, text
    lines = text.splitlines(keepends=True)
    if lines[0].strip() != FENCE:
        return None, text
    for index in range(1, len(lines)):
        if lines[index].strip() in (FENCE, "..."):
            raw = "".join(lines[1:index])
            try:
                meta = yaml.safe_load(raw) if raw.strip() else {}
            except yaml.YAMLError as exc:
                raise CardError(f"The frontmatter is not valid YAML: {exc}".strip()) from None
            if not isinstance(meta, dict):
                raise CardError("The frontmatter must be a YAML mapping (`key: value` lines).")
            return meta, "".join(lines[index + 1 :])
    raise CardError("The frontmatter is not closed: add a line `---` after it.")


def join_frontmatter(meta: dict[str, Any], body: str) -> str:
    """`---` YAML `---` followed by `body` (keys in card order, then the rest)."""
    ordered = {key: meta[key] for key in CARD_FIELD_ORDER if key in meta}
    ordered.update({key: value for key, value in meta.items() if key not in ordered})
    dumped = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=1000)
    return f"{FENCE}\n{dumped}{FENCE}\n{body.lstrip(chr(10))}"


def read_meta(path: Path) -> dict[str, Any]:
    """Frontmatter of `path` ({} when absent, unreadable or invalid)."""
    try:
        meta, _ = split_frontmatter(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, CardError):
        return {}
    return meta or {}


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
    """A file-name slug: lower case, words joined by `-`, letters of any script kept."""
    norm = unicodedata.normalize("NFKC", text).strip().lower()
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


def source_range(link: object) -> tuple[int, int] | None:
    """The line range of a `source_conversation` link, None when it has none."""
    match = _SOURCE.match(str(link or ""))
    if not match or not match.group("a"):
        return None
    return int(match.group("a")), int(match.group("b"))


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
) -> str:
    """`text` with its frontmatter checked and the code-owned fields set; raises CardError.

    `name` and a real `description` are required; `tags` becomes a list of strings; the
    transcript range grows to cover what `previous` (the card before this change) covered.
    """
    meta, body = split_frontmatter(text)
    if meta is None:
        raise CardError(
            "A card starts with YAML frontmatter between `---` lines holding `name`, "
            "`description` and `tags`."
        )
    name = str(meta.get("name") or "").strip()
    description = str(meta.get("description") or "").strip()
    if not name:
        raise CardError("The frontmatter needs `name`: the topic of this card, in a few words.")
    if len(description) < MIN_DESCRIPTION_CHARS or description.lower() == name.lower():
        raise CardError(
            "The frontmatter needs `description`: one or two sentences summarizing what the "
            "card records (not just its name)."
        )
    old_range = None
    if previous is not None:
        try:
            old_meta, _ = split_frontmatter(previous)
        except CardError:
            old_meta = None
        old_range = source_range((old_meta or {}).get("source_conversation"))
    meta["name"], meta["description"] = name, description
    meta["session_id"] = session_id
    meta["source_conversation"] = source_link(session_id, merged_range(old_range, lines))
    meta["date"] = f"{day:%Y-%m-%d}"
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
def transcript_line_range(path: Path, message_ids: Iterable[str]) -> tuple[int, int] | None:
    """1-based first and last JSONL line of `path` recording any of `message_ids`."""
    wanted = set(message_ids)
    first = last = 0
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                msg_id = _record_message_id(line)
                if msg_id is not None and msg_id in wanted:
                    first = first or number
                    last = number
    except OSError:
        return None
    return (first, last) if first else None


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
