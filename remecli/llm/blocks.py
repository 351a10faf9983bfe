"""Helpers over agentscope content blocks: stable keys, token cost, text, tool-call atoms."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Protocol

MSG_OVERHEAD = 4
TOOL_OVERHEAD = 8
DATA_BLOCK_TOKENS = 1_000


class Counts(Protocol):
    """What counts tokens (the one TokenCounter, or a test's stand-in)."""

    def count(self, text: str) -> int:
        """Tokens in `text`."""
        ...


def block_key(block: Any) -> str:
    """Key of a block within its message: `type:id` (a tool call and its result share the id)."""
    return f"{block.type}:{block.id}"


def output_text(output: Any) -> str:
    """Text of a tool result's output (a string or a list of text/data blocks)."""
    if isinstance(output, str):
        return output
    return "".join(getattr(b, "text", "") for b in output or [])


def _data_count(output: Any) -> int:
    if isinstance(output, str):
        return 0
    return sum(1 for b in output or [] if getattr(b, "type", "") == "data")


def block_tokens(counter: Counts, block: Any) -> int:
    """Tokens a block costs when sent (thinking is not sent by the OpenAI formatter)."""
    kind = block.type
    if kind == "text":
        return counter.count(block.text)
    if kind == "tool_call":
        return counter.count(block.name) + counter.count(block.input or "") + TOOL_OVERHEAD
    if kind == "tool_result":
        extra = _data_count(block.output) * DATA_BLOCK_TOKENS
        return counter.count(output_text(block.output)) + TOOL_OVERHEAD + extra
    if kind == "hint":
        hint = block.hint
        return counter.count(hint if isinstance(hint, str) else output_text(hint)) + MSG_OVERHEAD
    if kind == "data":
        return DATA_BLOCK_TOKENS
    return 0


def block_text(block: Any, limit: int | None = None) -> str:
    """A one-line-ish readable form of a block, for summaries and `/history`."""
    kind = block.type
    if kind == "text":
        text = block.text
    elif kind == "thinking":
        text = f"(thinking) {block.thinking}"
    elif kind == "tool_call":
        text = f"→ tool call {block.name}({_compact_json(block.input)})"
    elif kind == "tool_result":
        state = getattr(block, "state", "")
        text = f"← {block.name} result [{state}]: {output_text(block.output)}"
    elif kind == "hint":
        hint = block.hint
        text = f"(hint) {hint if isinstance(hint, str) else output_text(hint)}"
    elif kind == "data":
        text = f"(attachment {getattr(block, 'name', '') or block.source.media_type})"
    else:
        text = f"({kind})"
    return clip(text, limit) if limit else text


def clip(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters, keeping head and tail."""
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]} …[{len(text) - limit} chars omitted]… {text[-tail:]}"


def _compact_json(raw: str) -> str:
    try:
        return json.dumps(json.loads(raw), ensure_ascii=False)
    except (TypeError, ValueError):
        return raw or ""


def group_atoms(blocks: Iterable[Any]) -> list[list[Any]]:
    """Split one message's blocks into atoms that must stay together.

    A tool call and every result with its id land in the same atom (with whatever lies
    between), and thinking blocks stick to the block that follows them; so cutting between
    atoms never leaves a result without its call or a call without its result.
    """
    groups: list[list[Any]] = []
    call_group: dict[str, int] = {}
    open_calls: set[str] = set()
    prefix: list[Any] = []
    for block in blocks:
        kind = block.type
        if kind == "thinking" and not open_calls:
            prefix.append(block)
            continue
        if kind == "tool_result" and block.id in call_group:
            first = call_group[block.id]
            if first < len(groups) - 1:
                merged = [b for group in groups[first:] for b in group]
                del groups[first:]
                groups.append(merged)
                for call_id, index in call_group.items():
                    if index > first:
                        call_group[call_id] = first
            groups[-1].extend(prefix + [block])
            prefix = []
            open_calls.discard(block.id)
            continue
        if open_calls or (kind == "tool_result" and groups):
            groups[-1].extend(prefix + [block])
        else:
            groups.append(prefix + [block])
        prefix = []
        if kind == "tool_call":
            call_group[block.id] = len(groups) - 1
            open_calls.add(block.id)
    if prefix:
        groups.append(prefix)
    return groups
