"""Conversations as text for the extractor: OpenAI-style dicts (`role`, `content`,
`time_created`, `tool_calls`) or agentscope messages (text, tool calls and tool results)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from remecli.llm.blocks import block_text, clip
from remecli.vector.node import normalize_time
from remecli.vector.values import JSON

TEXT_LIMIT = 4_000
TOOL_LIMIT = 1_500


@dataclass
class Transcript:
    """The rendered conversation, its last message time and the tools it called."""

    text: str
    last_time: str | None
    tools: list[str]


def _stamp(value: object) -> str | None:
    try:
        return normalize_time(value)
    except ValueError:
        return None


def _dict_lines(msg: Mapping[str, object], tools: list[str]) -> list[str]:
    content = msg.get("content")
    if isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict)]
        content = "\n".join(p for p in parts if p)
    lines = [clip(str(content), TEXT_LIMIT)] if content else []
    calls = msg.get("tool_calls") or []
    for call in calls if isinstance(calls, list | tuple) else []:
        function = call.get("function", call) if isinstance(call, dict) else {}
        name = str(function.get("name", "?"))
        tools.append(name)
        lines.append(clip(f"→ tool call {name}({function.get('arguments', '')})", TOOL_LIMIT))
    return lines


def _object_lines(msg: object, tools: list[str]) -> list[str]:
    content = getattr(msg, "content", "")
    if isinstance(content, str):
        return [clip(content, TEXT_LIMIT)] if content.strip() else []
    lines = []
    for block in content or []:
        kind = getattr(block, "type", "")
        if kind == "text" and block.text.strip():
            lines.append(clip(block.text, TEXT_LIMIT))
        elif kind in ("tool_call", "tool_result"):
            if kind == "tool_call":
                tools.append(str(block.name))
            lines.append(block_text(block, TOOL_LIMIT))
    return lines


def render(messages: Sequence[object]) -> Transcript:
    """One line group per message: `[time] role: text`, tool calls and results shortened."""
    out: list[str] = []
    tools: list[str] = []
    last: str | None = None
    for msg in messages:
        if isinstance(msg, dict):
            role = str(msg.get("role", "?"))
            when = _stamp(msg.get("time_created") or msg.get("created_at") or msg.get("timestamp"))
            lines = _dict_lines(msg, tools)
            if role == "tool" and lines:
                lines = [clip("← tool result: " + lines[0], TOOL_LIMIT)]
        else:
            role = str(getattr(msg, "role", "?"))
            when = _stamp(getattr(msg, "created_at", None) or getattr(msg, "timestamp", None))
            lines = _object_lines(msg, tools)
        if not lines:
            continue
        last = when or last
        prefix = f"[{when}] " if when else ""
        out.append(f"{prefix}{role}: " + "\n    ".join(lines))
    return Transcript("\n".join(out), last, sorted(set(tools)))


def as_json_list(items: Sequence[Mapping[str, JSON]]) -> str:
    """Compact JSON for prompts (non-ASCII kept readable)."""
    return json.dumps(items, ensure_ascii=False, indent=1)
