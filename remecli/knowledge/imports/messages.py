"""What every importer produces: plain messages `memory_record` accepts, their session and the
folder (project) they were held in."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from remecli.vector.values import JSONObject

MAX_CONTENT_CHARS = 100_000  # memory_record's limit per message
NOTE_CHARS = 120  # a tool call leaves one line of at most this many characters
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class ImportedMessage:
    """One turn: who said it, what (text only), a stable id when the format has one, and when."""

    role: str
    content: str
    id: str | None = None
    timestamp: str | None = None
    name: str | None = None

    def as_record(self) -> dict[str, str]:
        """The message as `memory_record` takes it (unset fields left out, content clipped)."""
        content = self.content
        if len(content) > MAX_CONTENT_CHARS:
            content = content[: MAX_CONTENT_CHARS - 1] + "…"
        record: dict[str, str] = {"role": self.role, "content": content}
        for key in ("id", "timestamp", "name"):
            value = getattr(self, key)
            if value:
                record[key] = value
        return record


@dataclass
class ImportedConversation:
    """A conversation read from one file: its session id (one transcript each) and messages."""

    session_id: str
    messages: list[ImportedMessage] = field(default_factory=list)
    format: str = ""
    cwd: str | None = None  # the folder it was held in, when the format records one

    @property
    def project(self) -> str | None:
        """The project of its folder (`remecli.config.project.project_of_folder`; "" when that
        folder is in none here); None when the format records no folder."""
        if self.cwd is None:
            return None
        from remecli.config.project import project_of_folder

        return project_of_folder(Path(self.cwd)) if self.cwd else ""

    def records(self) -> list[dict[str, str]]:
        """Every message as `memory_record` takes it."""
        return [message.as_record() for message in self.messages]

    def days(self) -> list[str]:
        """The local days (YYYY-MM-DD) the conversation's messages were said on, in order."""
        seen: list[str] = []
        for message in self.messages:
            moment = parse_time(message.timestamp)
            day = f"{moment.astimezone():%Y-%m-%d}" if moment else None
            if day and day not in seen:
                seen.append(day)
        return seen


def parse_time(value: object) -> dt.datetime | None:
    """An ISO 8601 time ("…Z" too) or epoch seconds as an aware datetime; None if unreadable."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return dt.datetime.fromtimestamp(float(value), dt.UTC)
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        moment = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.astimezone()


def iso_time(value: object) -> str | None:
    """`value` as an ISO 8601 string memory_record accepts, or None."""
    moment = parse_time(value)
    return moment.isoformat() if moment else None


def session_id_from(prefix: str, raw: str) -> str:
    """`<prefix>-<raw>` made safe for a transcript file name (letters, digits, '.', '_', '-')."""
    cleaned = _UNSAFE.sub("-", raw).strip("-._") or "session"
    return f"{prefix}-{cleaned}"[:128]


def tool_note(name: str, arguments: object) -> str:
    """The one line a tool call leaves: `[tool NAME: {arguments…}]`."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            pass
    detail = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    if len(detail) > NOTE_CHARS:
        detail = detail[: NOTE_CHARS - 1] + "…"
    return f"[tool {name or '?'}: {detail}]"


def read_json_lines(path: Path) -> list[JSONObject]:
    """The JSON objects of a JSONL file; a broken line (one being written) is skipped."""
    entries: list[JSONObject] = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                entries.append(entry)
    return entries
