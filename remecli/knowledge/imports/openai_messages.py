"""OpenAI-style message lists in a JSON file: `[{"role", "content"}, …]` or
`{"messages": [...]}` (a chat completion request, an exported conversation).

`content` may be a string or a list of parts (`{"type": "text"|"input_text"|"output_text",
"text"}`); assistant `tool_calls` leave one note line each; `tool`/`function` messages (results)
and `system`/`developer` messages (instructions) are dropped. Optional per-message `id`,
`name` and a time (`timestamp`, `created_at` or `created`: ISO 8601 or epoch seconds) are kept.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from remecli.knowledge.imports.messages import (
    ImportedConversation,
    ImportedMessage,
    iso_time,
    session_id_from,
    tool_note,
)
from remecli.vector.values import JSON, JSONObject

FORMAT = "openai"
TEXT_PARTS = ("text", "input_text", "output_text")


class NotMessages(ValueError):
    """The JSON is not a message list."""


def message_list(data: JSON) -> list[JSONObject]:
    """The messages of a loaded JSON document; raises `NotMessages` otherwise."""
    items = data.get("messages") if isinstance(data, dict) else data
    messages = [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []
    if (
        not isinstance(items, list)
        or len(messages) != len(items)
        or not all("role" in item for item in messages)
    ):
        raise NotMessages(
            'expected a JSON list of {"role", "content"} objects or {"messages": [...]}'
        )
    return messages


def _text(content: JSON) -> str:
    if isinstance(content, str):
        return content.strip()
    parts = content if isinstance(content, list) else []
    return "\n".join(
        str(part.get("text", "")).strip()
        for part in parts
        if isinstance(part, dict) and part.get("type") in TEXT_PARTS and part.get("text")
    )


def _notes(item: JSONObject) -> list[str]:
    notes = []
    calls = item.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function", {}) if isinstance(call, dict) else {}
        if isinstance(function, dict):
            notes.append(tool_note(str(function.get("name", "?")), function.get("arguments", "")))
    return notes


def parse_messages(items: list[JSONObject], session_id: str) -> ImportedConversation:
    """The conversation of these messages, recorded as `session_id`."""
    messages = []
    for item in items:
        role = item.get("role")
        if role not in ("user", "assistant"):
            continue
        body = "\n".join(
            part for part in [_text(item.get("content")), *_notes(item)] if part
        ).strip()
        if not body:
            continue
        stamp = item.get("timestamp", item.get("created_at", item.get("created")))
        messages.append(
            ImportedMessage(
                role=str(role),
                content=body,
                id=str(item["id"]) if item.get("id") else None,
                timestamp=iso_time(stamp),
                name=str(item["name"]) if item.get("name") else None,
            )
        )
    return ImportedConversation(session_id, messages, FORMAT)


def read_openai_messages(path: Path, session_id: str | None = None) -> ImportedConversation:
    """The conversation of one JSON file; session id `openai-<name>-<hash of the path>` unless
    given (the same file always lands in the same transcript)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise NotMessages(f"{path} is not valid JSON ({exc})") from None
    if session_id is None:
        digest = hashlib.sha256(str(path.resolve()).encode("utf-8")).hexdigest()[:8]
        session_id = session_id_from("openai", f"{path.stem}-{digest}")
    return parse_messages(message_list(data), session_id)
