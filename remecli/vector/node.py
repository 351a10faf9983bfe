"""MemoryNode: one memory (personal, task, tool or history), its stable id and content hash."""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

PERSONAL = "personal"
TASK = "task"
TOOL = "tool"
HISTORY = "history"
MEMORY_TYPES = (PERSONAL, TASK, TOOL, HISTORY)

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
HISTORY_EMBED_CHARS = 4_000
_SPACES = re.compile(r"\s+")
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# Fields stored as columns; any other filter or sort key names a metadata entry.
COLUMNS = (
    "memory_id",
    "memory_type",
    "memory_target",
    "content",
    "content_hash",
    "when_to_use",
    "message_time",
    "time_created",
    "time_modified",
    "author",
)
TIME_FIELDS = ("message_time", "time_created", "time_modified")
NULLABLE = ("message_time",)  # the only column that may hold no value


def now_text() -> str:
    """The current local time as `YYYY-MM-DD HH:MM:SS`."""
    return datetime.now().strftime(TIME_FORMAT)


def normalize_time(value: Any, *, end_of_day: bool = False) -> str | None:
    """A time as `YYYY-MM-DD HH:MM:SS` (sortable text); dates, ISO strings and datetimes work.

    A bare date is the day's first second, or its last with `end_of_day` (for range upper bounds).
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.strftime(TIME_FORMAT)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(float(value)).strftime(TIME_FORMAT)
    text = str(value).strip()
    if _DATE_ONLY.match(text):
        return f"{text} {'23:59:59' if end_of_day else '00:00:00'}"
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"cannot read the time {text!r}: use YYYY-MM-DD or YYYY-MM-DD HH:MM:SS"
        ) from None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone().replace(tzinfo=None)
    return parsed.strftime(TIME_FORMAT)


def content_hash(content: str) -> str:
    """SHA-256 of the content with whitespace collapsed (the dedup key within one target)."""
    canonical = _SPACES.sub(" ", content).strip()
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def new_memory_id() -> str:
    """A random id; it never changes, whatever is updated later."""
    return uuid.uuid4().hex


@dataclass
class MemoryNode:
    """One memory. `score` is the similarity of a retrieval (never stored); `action` tells what
    `summarize_memory` did with it (`add`, `update`, `delete`; never stored either)."""

    memory_type: str
    memory_target: str
    content: str
    memory_id: str = field(default_factory=new_memory_id)
    when_to_use: str = ""
    message_time: str | None = None
    time_created: str = field(default_factory=now_text)
    time_modified: str = ""
    author: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    score: float | None = None
    action: str | None = None

    def __post_init__(self) -> None:
        if self.memory_type not in MEMORY_TYPES:
            raise ValueError(
                f"unknown memory_type {self.memory_type!r}; use one of {', '.join(MEMORY_TYPES)}"
            )
        self.time_created = normalize_time(self.time_created) or now_text()
        self.time_modified = normalize_time(self.time_modified) or self.time_created
        self.message_time = normalize_time(self.message_time)

    @property
    def content_hash(self) -> str:
        """The dedup key of the content."""
        return content_hash(self.content)

    def embedding_text(self) -> str:
        """The text that is embedded: when-to-use (if any) then the content (a stored
        conversation only by its beginning, which embedding models accept in one piece)."""
        text = f"{self.when_to_use}\n{self.content}" if self.when_to_use else self.content
        return text[:HISTORY_EMBED_CHARS] if self.memory_type == HISTORY else text

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (transient `score`/`action` only when set)."""
        data = asdict(self)
        for transient in ("score", "action"):
            if data[transient] is None:
                del data[transient]
        return data

    def stored_fields(self) -> dict[str, Any]:
        """Column values as a store writes them (metadata separately)."""
        return {
            "memory_id": self.memory_id,
            "memory_type": self.memory_type,
            "memory_target": self.memory_target,
            "content": self.content,
            "content_hash": self.content_hash,
            "when_to_use": self.when_to_use,
            "message_time": self.message_time,
            "time_created": self.time_created,
            "time_modified": self.time_modified,
            "author": self.author,
        }

    @classmethod
    def from_row(cls, row: dict[str, Any], metadata: dict[str, Any]) -> MemoryNode:
        """Rebuild a node from stored column values and its metadata."""
        return cls(
            memory_type=row["memory_type"],
            memory_target=row["memory_target"],
            content=row["content"],
            memory_id=row["memory_id"],
            when_to_use=row.get("when_to_use") or "",
            message_time=row.get("message_time"),
            time_created=row["time_created"],
            time_modified=row.get("time_modified") or "",
            author=row.get("author") or "",
            metadata=dict(metadata or {}),
        )

    def __str__(self) -> str:
        when = self.message_time or self.time_created
        score = f" score={self.score:.3f}" if self.score is not None else ""
        return f"[{self.memory_type}:{self.memory_target} {when}{score}] {self.content}"
