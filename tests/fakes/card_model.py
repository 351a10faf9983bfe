"""The card-layout branch of the fake memory model: writes or extends a topic card.

Used by `MemoryAwareModel` when the summarizer's system prompt is the card prompt (the runtime
passed a `session_id`): a new conversation gets `memory/<day>/talk-<hash>.md` holding every user
line as a timeline entry; a continued one is read, then rewritten with its old content kept and
the new lines appended (so the summarizer's "nothing dropped" checks pass).
"""

from __future__ import annotations

import hashlib
import json
import re

from tests.fakes.messages import content_text
from tests.fakes.turns import ToolCall, ToolCallsTurn

_EXISTING = re.compile(r"already has its card `([^`]+)`")
_FOLDER = re.compile(r"(memory/\d{4}-\d{2}-\d{2})/<topic-slug>\.md")


def is_card_summarizer(body: dict) -> bool:
    """True for a request of the summarizer in the card layout."""
    system = content_text(body["messages"][0])
    return "topic cards" in system and bool(_FOLDER.search(system) or _EXISTING.search(system))


def card_turn(body: dict) -> ToolCallsTurn | str:
    """The next step of the scripted card summarizer for this request."""
    system = content_text(body["messages"][0])
    transcript = content_text(next(m for m in body["messages"] if m["role"] == "user"))
    said = [s.strip() for s in re.findall(r"^\[\d\d:\d\d\] user: (.+)$", transcript, flags=re.M)]
    tools = [content_text(m) for m in body["messages"] if m["role"] == "tool"]
    existing = _EXISTING.search(system)
    entries = "".join(f"- said: {s}\n" for s in said)
    if existing:
        path = existing.group(1)
        if not tools:
            return ToolCallsTurn([ToolCall("read", json.dumps({"path": path}))])
        if len(tools) == 1:
            content = tools[0].rstrip("\n") + "\n" + entries
            return ToolCallsTurn(
                [ToolCall("write", json.dumps({"path": path, "content": content}))]
            )
        return "Saved."
    if tools:
        return "Saved."
    folder_match = _FOLDER.search(system)
    assert folder_match, "card prompt without its folder"
    digest = hashlib.sha1(transcript.encode()).hexdigest()[:8]
    first = said[0] if said else "(no user text)"
    content = (
        f"---\nname: Talk {digest}\ndescription: 'The user said: {first[:60].replace(chr(39), '')}'\n"
        f"tags: [talk]\n---\n# Talk {digest}\n\n## Current state\n- {len(said)} user lines\n\n"
        f"## Timeline\n{entries}"
    )
    path = f"{folder_match.group(1)}/talk-{digest}.md"
    return ToolCallsTurn([ToolCall("write", json.dumps({"path": path, "content": content}))])
