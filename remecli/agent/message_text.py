"""Plain-text views of agentscope messages (for token counting, /history and summaries)."""

from __future__ import annotations

from typing import Any


def block_text(block: Any) -> str:
    """The text a block carries (tool calls as `name(args)`, tool results as their output)."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return block.text
    if kind == "thinking":
        return block.thinking
    if kind == "tool_call":
        return f"{block.name}({block.input})"
    if kind == "tool_result":
        output = block.output
        if isinstance(output, str):
            return output
        return "\n".join(getattr(part, "text", "[data]") for part in output)
    if kind == "hint":
        hint = block.hint
        return hint if isinstance(hint, str) else "\n".join(getattr(p, "text", "") for p in hint)
    if kind == "data":
        return "[data]"
    return ""


def message_text(msg: Any) -> str:
    """All of a message's blocks as text, one per line."""
    content = msg.content
    if isinstance(content, str):
        return content
    return "\n".join(t for t in (block_text(b) for b in content) if t)
