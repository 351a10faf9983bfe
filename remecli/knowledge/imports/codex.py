"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`).

Each line is `{"timestamp", "type", "payload"}`: `session_meta` (the session's `id`, the `cwd` it
ran in — its project, see `ImportedConversation.project` — …),
`turn_context`, `event_msg` (UI events that repeat the messages: skipped), `compacted`, and
`response_item`s in the Responses API's shape: `message` (role user/assistant/developer, content
blocks `input_text`/`output_text`), `reasoning` (skipped), `function_call` /
`custom_tool_call` / `local_shell_call` (one note line each) and their outputs (skipped).
Older rollouts start with a bare `{"id", "timestamp", "instructions"}` line followed by bare
response items (and `{"record_type": "state"}` lines); they are read too. Codex injects the
user's instructions and the environment as user messages (`<user_instructions>`,
`<environment_context>`, "# AGENTS.md instructions …"): those are dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

from remecli.knowledge.imports.messages import (
    ImportedConversation,
    ImportedMessage,
    iso_time,
    read_json_lines,
    session_id_from,
    tool_note,
)
from remecli.vector.values import JSON, JSONObject

FORMAT = "codex"
ROLLOUT_TYPES = {"session_meta", "response_item", "turn_context", "event_msg", "compacted"}
TOOL_CALLS = {"function_call", "custom_tool_call", "local_shell_call"}
NOISE_PREFIXES = (
    "<user_instructions>",
    "<environment_context>",
    "<user_shell_command>",
    "<turn_aborted>",
    "# AGENTS.md instructions",
)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)


def looks_like(entries: list[JSONObject]) -> bool:
    """True when these first entries are a Codex rollout's (current or older layout)."""
    if any(entry.get("type") in ROLLOUT_TYPES and "payload" in entry for entry in entries):
        return True
    first: JSONObject = entries[0] if entries else {}
    return "instructions" in first and "id" in first and "type" not in first


def _text(content: JSON) -> str:
    """The text blocks of a message's content, joined; noise blocks dropped."""
    if isinstance(content, str):
        blocks: list[JSON] = [{"type": "input_text", "text": content}]
    else:
        blocks = content if isinstance(content, list) else []
    texts = []
    for block in blocks:
        if not isinstance(block, dict) or block.get("type") not in (
            "input_text",
            "output_text",
            "text",
        ):
            continue
        text = str(block.get("text", "")).strip()
        if text and not text.startswith(NOISE_PREFIXES):
            texts.append(text)
    return "\n".join(texts)


def _tool_call(item: JSONObject) -> str:
    """The note a tool call leaves."""
    if item.get("type") == "local_shell_call":
        action = item.get("action")
        command = action.get("command") if isinstance(action, dict) else None
        return tool_note("shell", {"command": command})
    arguments = item.get("arguments", item.get("input", {}))
    return tool_note(str(item.get("name", "?")), arguments)


def parse_entries(entries: list[JSONObject], fallback_id: str = "") -> ImportedConversation:
    """The conversation in these rollout lines (see the module's docstring); its id is
    `codex-<session id>` (`fallback_id` when the rollout names none)."""
    session_id = ""
    cwd: str | None = None
    messages: list[ImportedMessage] = []
    last_stamp: JSON = None  # older rollouts date only their first line: it dates the rest
    for entry in entries:
        kind = entry.get("type")
        last_stamp = entry.get("timestamp") or last_stamp
        payload = entry.get("payload")
        if kind == "session_meta" and isinstance(payload, dict):
            session_id = session_id or str(payload.get("id") or "")
            found = payload.get("cwd")
            cwd = found if cwd is None and isinstance(found, str) else cwd
            continue
        if kind == "response_item" and isinstance(payload, dict):
            item, stamp = payload, last_stamp
        elif "payload" not in entry and kind in ("message", *TOOL_CALLS):
            item, stamp = entry, last_stamp  # the older, bare layout
        else:
            if "instructions" in entry and "id" in entry and kind is None:
                session_id = session_id or str(entry["id"])
            continue
        message = _message(item, stamp)
        if message is not None:  # each its own message: ids stay stable as the file grows
            messages.append(message)
    return ImportedConversation(
        session_id_from("codex", session_id or fallback_id), messages, FORMAT, cwd
    )


def _message(item: JSONObject, stamp: JSON) -> ImportedMessage | None:
    """One response item as a message; None for what is not kept."""
    kind = item.get("type")
    if kind in TOOL_CALLS:
        return ImportedMessage("assistant", _tool_call(item), None, iso_time(stamp), "codex")
    if kind != "message" or item.get("role") not in ("user", "assistant"):
        return None  # reasoning, tool outputs, developer/system instructions
    body = _text(item.get("content"))
    if not body:
        return None
    role = str(item["role"])
    name = "codex" if role == "assistant" else "user"
    message_id = item.get("id")
    return ImportedMessage(
        role, body, str(message_id) if message_id else None, iso_time(stamp), name
    )


def read_codex(path: Path, session_id: str | None = None) -> ImportedConversation:
    """The conversation of one rollout file (session id: its `session_meta` id, else the uuid
    in the file's name), or `session_id` when given."""
    found = _UUID.search(path.stem)
    conversation = parse_entries(read_json_lines(path), found.group(0) if found else path.stem)
    if session_id:
        conversation.session_id = session_id
    return conversation
