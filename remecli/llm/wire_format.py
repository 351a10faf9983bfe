"""The plainest chat-completions message shape: what every OpenAI-compatible server accepts.

agentscope's formatter sends every message with a `name` and its text as a list of parts.
Some servers reject `name` or need string content, so text-only content becomes one string and
`name` is sent only where it carries meaning (a user message from someone other than "user").
Images, audio and files keep their list of parts; tool calls are unchanged.
"""

from __future__ import annotations

from typing import Any

_DEFAULT_USER_NAMES = {"", "user"}


def plain_message(message: dict[str, Any]) -> dict[str, Any]:
    """One formatted message in the plainest shape that says the same thing."""
    out = dict(message)
    name = out.get("name")
    if "name" in out and not (out.get("role") == "user" and name not in _DEFAULT_USER_NAMES):
        del out["name"]
    content = out.get("content")
    if isinstance(content, list) and content and all(_is_text(part) for part in content):
        out["content"] = "\n".join(part["text"] for part in content)
    return out


def _is_text(part: Any) -> bool:
    return (
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
    )
