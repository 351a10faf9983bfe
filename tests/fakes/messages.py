"""Reading recorded chat requests: the text of a message, the tool results of a request."""

from __future__ import annotations


def content_text(message: dict) -> str:
    """A chat message's text, whether its content is a string or a list of parts."""
    content = message.get("content") or ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


def tool_texts(body: dict) -> list[str]:
    """The texts of the `tool` messages of a chat request body, in order."""
    return [content_text(m) for m in body["messages"] if m["role"] == "tool"]
