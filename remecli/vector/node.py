"""MemoryNode: one memory (identity, personal, procedural, tool, summary or history), its stable
id and content hash. The types and fields are the reference ReMe's (`task` is read as
`procedural`, the name this store used before)."""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime

from remecli.vector.values import ColumnValues, JSONObject, MetadataIn

IDENTITY = "identity"
PERSONAL = "personal"
PROCEDURAL = "procedural"
TASK = PROCEDURAL  # task memory is procedural memory (the reference's name)
TOOL = "tool"
SUMMARY = "summary"
HISTORY = "history"
MEMORY_TYPES = (IDENTITY, PERSONAL, PROCEDURAL, TOOL, SUMMARY, HISTORY)
OLD_TYPE_NAMES = {"task": PROCEDURAL}  # stored by earlier versions; migrated when a store opens
# Kept in the stored metadata under these keys (the reference keeps them beside the metadata).
RESERVED_METADATA = ("ref_memory_id", "score")

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
# The dedup key of a node: (memory_type, memory_target, content_hash); one node per key.
ContentKey = tuple[str, str, str]
TIME_FIELDS = ("message_time", "time_created", "time_modified")
NULLABLE = ("message_time",)  # the only column that may hold no value


def memory_type_name(value: object) -> str:
    """The canonical name of a memory type (`task` → `procedural`; enum members by value)."""
    name = str(getattr(value, "value", value))
    return OLD_TYPE_NAMES.get(name, name)


def now_text() -> str:
    """The current local time as `YYYY-MM-DD HH:MM:SS`."""
    return datetime.now().strftime(TIME_FORMAT)


def normalize_time(value: object, *, end_of_day: bool = False) -> str | None:
    """A time as `YYYY-MM-DD HH:MM:SS` (sortable text); dates, ISO strings and datetimes work
    (anything else is read as its text).

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
    """One memory, with the reference's fields. `score` is the stored importance, replaced by
    the similarity in a retrieval's results; `vector` is filled when the store hands it out;
    `action` tells what `summarize_memory` did with it (`add`, `update`, `delete`; not stored)."""

    memory_type: str
    memory_target: str
    content: str
    memory_id: str = field(default_factory=new_memory_id)
    when_to_use: str = ""
    message_time: str = ""
    ref_memory_id: str = ""
    time_created: str = field(default_factory=now_text)
    time_modified: str = ""
    author: str = ""
    score: float = 0.0
    vector: list[float] | None = None
    metadata: JSONObject = field(default_factory=dict)
    action: str | None = None

    def __post_init__(self) -> None:
        self.memory_type = memory_type_name(self.memory_type)
        if self.memory_type not in MEMORY_TYPES:
            raise ValueError(
                f"unknown memory_type {self.memory_type!r}; use one of {', '.join(MEMORY_TYPES)}"
            )
        self.time_created = normalize_time(self.time_created) or now_text()
        self.time_modified = normalize_time(self.time_modified) or self.time_created
        self.message_time = normalize_time(self.message_time) or ""
        self.score = float(self.score or 0.0)

    @property
    def content_hash(self) -> str:
        """The dedup key of the content."""
        return content_hash(self.content)

    @property
    def content_key(self) -> ContentKey:
        """(memory_type, memory_target, content_hash): a store keeps one node per key."""
        return (self.memory_type, self.memory_target, self.content_hash)

    def embedding_text(self) -> str:
        """The text that is embedded: when-to-use (if any) then the content (a stored
        conversation only by its beginning, which embedding models accept in one piece)."""
        text = f"{self.when_to_use}\n{self.content}" if self.when_to_use else self.content
        return text[:HISTORY_EMBED_CHARS] if self.memory_type == HISTORY else text

    def model_dump(
        self, *, exclude: set[str] | None = None, exclude_none: bool = False, **_: object
    ) -> JSONObject:
        """Every field as a dict, as the reference's pydantic `MemoryNode.model_dump()`."""
        data: JSONObject = asdict(self)
        for name in exclude or ():
            data.pop(name, None)
        if exclude_none:
            data = {key: value for key, value in data.items() if value is not None}
        return data

    def model_dump_json(
        self, *, exclude: set[str] | None = None, exclude_none: bool = False, **_: object
    ) -> str:
        """`model_dump()` as JSON text (pydantic's other options are accepted and ignored)."""
        dumped = self.model_dump(exclude=exclude, exclude_none=exclude_none)
        return json.dumps(dumped, ensure_ascii=False)

    def to_dict(self) -> JSONObject:
        """A JSON-ready dict (`vector` and `action` only when set)."""
        return self.model_dump(exclude_none=True)

    def stored_metadata(self) -> JSONObject:
        """The metadata as a store keeps it: `ref_memory_id` and `score` beside the user's keys."""
        kept: JSONObject = {}
        if self.ref_memory_id:
            kept["ref_memory_id"] = self.ref_memory_id
        if self.score:
            kept["score"] = self.score
        return {**kept, **self.metadata}

    def stored_fields(self) -> ColumnValues:
        """Column values as a store writes them (metadata separately)."""
        return {
            "memory_id": self.memory_id,
            "memory_type": self.memory_type,
            "memory_target": self.memory_target,
            "content": self.content,
            "content_hash": self.content_hash,
            "when_to_use": self.when_to_use,
            "message_time": self.message_time or None,
            "time_created": self.time_created,
            "time_modified": self.time_modified,
            "author": self.author,
        }

    def take_stored_metadata(self, stored: MetadataIn | None) -> MemoryNode:
        """Set `ref_memory_id`, `score` and `metadata` from metadata as a store keeps it."""
        extra = dict(stored or {})
        score = extra.pop("score", 0.0)
        self.ref_memory_id = str(extra.pop("ref_memory_id", "") or "")
        self.score = float(score) if isinstance(score, int | float) else 0.0
        self.metadata = extra
        return self

    def apply_update(self, fields: ColumnValues, metadata: MetadataIn | None) -> MemoryNode:
        """Set column `fields` and merge `metadata` into the stored metadata (a None value
        removes a key): what every store's `update` does before it writes."""
        for name, value in fields.items():
            setattr(self, name, value)
        self.__post_init__()
        merged = self.stored_metadata()
        for key, new in (metadata or {}).items():
            if new is None:
                merged.pop(key, None)
            else:
                merged[key] = new
        return self.take_stored_metadata(merged)

    @classmethod
    def from_row(cls, row: Mapping[str, object], metadata: MetadataIn | None) -> MemoryNode:
        """Rebuild a node from stored column values (an engine's row or record: text, a missing
        optional column None or absent) and its stored metadata."""
        node = cls(
            memory_type=_text(row["memory_type"]),
            memory_target=_text(row["memory_target"]),
            content=_text(row["content"]),
            memory_id=_text(row["memory_id"]),
            when_to_use=_text(row.get("when_to_use")),
            message_time=_text(row.get("message_time")),
            time_created=_text(row["time_created"]),
            time_modified=_text(row.get("time_modified")),
            author=_text(row.get("author")),
        )
        return node.take_stored_metadata(metadata)

    def __str__(self) -> str:
        when = self.message_time or self.time_created
        score = f" score={self.score:.3f}" if self.score else ""
        return f"[{self.memory_type}:{self.memory_target} {when}{score}] {self.content}"


def _text(value: object) -> str:
    """A stored column value as text ("" for a missing one)."""
    return "" if value is None else str(value)
