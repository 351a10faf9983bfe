"""Claude Code transcripts (`~/.claude/projects/<project>/<session id>.jsonl`).

Each line is one entry: `type` user/assistant with a `message` in Anthropic's format (content a
string or blocks: text, thinking, tool_use, tool_result), a `uuid`, a `timestamp`, a `sessionId`,
the `cwd` it ran in (the conversation's project, see `ImportedConversation.project`).
Kept: user prompts, assistant text, one note line per tool call. Dropped: tool results,
thinking, sub-agent (`isSidechain`) and meta lines, slash-command and shell-mode echoes
(`<command-…>`, `<bash-input>`, `<bash-stdout>`…), "[Request interrupted by user]", API error
messages (`isApiErrorMessage`) and compact summaries replayed as user turns (`isCompactSummary`).
One reply streamed over several lines shares its `message.id`: the parts are merged in order.
"""

from __future__ import annotations

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

FORMAT = "claude-code"
NOISE_PREFIXES = (
    "<command-",
    "<local-command",
    "<system-reminder>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "Caveat: ",
    "[Request interrupted by user",
)
SKIP_FLAGS = ("isSidechain", "isMeta", "isApiErrorMessage", "isCompactSummary")


def looks_like(entries: list[JSONObject]) -> bool:
    """True when these first entries are Claude Code's."""
    return any(
        entry.get("type") in ("user", "assistant") and "message" in entry and "uuid" in entry
        for entry in entries
    )


def _parts(content: JSON, role: str) -> list[str]:
    """The texts and tool notes worth keeping of one entry's content."""
    if isinstance(content, str):
        blocks: list[JSON] = [{"type": "text", "text": content}]
    else:
        blocks = content if isinstance(content, list) else []
    texts: list[str] = []
    notes: list[str] = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            text = str(block.get("text", ""))
            if text.strip() and not text.lstrip().startswith(NOISE_PREFIXES):
                texts.append(text.strip())
        elif kind == "tool_use" and role == "assistant":
            notes.append(tool_note(str(block.get("name", "?")), block.get("input", {})))
    return texts + notes


def parse_entries(entries: list[JSONObject], fallback_id: str = "") -> ImportedConversation:
    """The conversation in these transcript entries (see the module's docstring); its id is
    `claude-<sessionId>` (`fallback_id` when no entry names its session)."""
    session_id = ""
    cwd: str | None = None
    messages: list[ImportedMessage] = []
    by_reply: dict[str, ImportedMessage] = {}
    for entry in entries:
        if entry.get("type") not in ("user", "assistant"):
            continue
        found = entry.get("cwd")
        if cwd is None and isinstance(found, str):
            cwd = found
        if any(entry.get(flag) for flag in SKIP_FLAGS):
            continue
        session_id = session_id or str(entry.get("sessionId") or "")
        raw = entry.get("message")
        message: JSONObject = raw if isinstance(raw, dict) else {}
        role = str(message.get("role") or entry["type"])
        if role not in ("user", "assistant"):
            continue
        body = "\n".join(_parts(message.get("content", entry.get("content")), role))
        if not body:
            continue  # tool results, thinking only, noise
        reply_id = str(message.get("id") or "") if role == "assistant" else ""
        if reply_id and reply_id in by_reply:  # the next part of one streamed reply
            by_reply[reply_id].content += "\n" + body
            continue
        imported = ImportedMessage(
            role=role,
            content=body,
            id=reply_id or str(entry.get("uuid") or "") or None,
            timestamp=iso_time(entry.get("timestamp")),
            name="claude" if role == "assistant" else "user",
        )
        if reply_id:
            by_reply[reply_id] = imported
        messages.append(imported)
    return ImportedConversation(
        session_id_from("claude", session_id or fallback_id), messages, FORMAT, cwd
    )


def read_claude_code(path: Path, session_id: str | None = None) -> ImportedConversation:
    """The conversation of one Claude Code transcript file (session id: its `sessionId`, else
    the file's name), or `session_id` when given."""
    conversation = parse_entries(read_json_lines(path), path.stem)
    if session_id:
        conversation.session_id = session_id
    return conversation
