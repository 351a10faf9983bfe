"""OpenAI wire formats built from scripted turns: chat.completion(.chunk), usage, embeddings."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import struct
from collections.abc import Iterator
from typing import Any

from .turns import CutStreamTurn, TextTurn, ToolCall, ToolCallsTurn

FINGERPRINT = "fp_fake"


def split_text(text: str, size: int) -> list[str]:
    """Cut ``text`` into pieces of ``size`` characters (at least one piece if text is non-empty)."""
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def estimate_usage(body: dict[str, Any], completion_text: str) -> dict[str, Any]:
    """A rough, deterministic usage block: about one token per 4 characters."""
    prompt_chars = len(json.dumps(body.get("messages", []), ensure_ascii=False))
    prompt = max(1, prompt_chars // 4)
    completion = max(1, len(completion_text) // 4) if completion_text else 0
    return usage_block(prompt, completion)


def usage_block(prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    """An OpenAI ``usage`` object."""
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
    }


def turn_usage(turn: TextTurn | ToolCallsTurn, body: dict[str, Any]) -> dict[str, Any]:
    """The usage a turn reports: its own ``usage`` override, else an estimate."""
    produced = turn.text + "".join(c.arguments for c in getattr(turn, "calls", []))
    estimate = estimate_usage(body, produced)
    if not turn.usage:
        return estimate
    prompt = turn.usage.get("prompt_tokens", estimate["prompt_tokens"])
    completion = turn.usage.get("completion_tokens", estimate["completion_tokens"])
    return usage_block(prompt, completion)


class ChunkBuilder:
    """Builds ``chat.completion.chunk`` dicts sharing one id/model/created."""

    def __init__(self, completion_id: str, model: str, created: int, with_usage_field: bool):
        self.base = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": FINGERPRINT,
        }
        self.with_usage_field = with_usage_field

    def delta(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        """A chunk carrying one choice delta."""
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        chunk = {**self.base, "choices": [choice]}
        if self.with_usage_field:
            chunk["usage"] = None
        return chunk

    def usage(self, usage: dict[str, Any]) -> dict[str, Any]:
        """The trailing usage chunk: empty ``choices``."""
        return {**self.base, "choices": [], "usage": usage}


def content_deltas(turn: TextTurn | ToolCallsTurn | CutStreamTurn) -> Iterator[dict[str, Any]]:
    """Deltas for reasoning then text, chunked by the turn's ``chunk_size``."""
    for piece in split_text(getattr(turn, "reasoning", None) or "", turn.chunk_size):
        yield {"reasoning_content": piece}
    for piece in split_text(turn.text, turn.chunk_size):
        yield {"content": piece}


def tool_call_deltas(calls: list[ToolCall], chunk_size: int) -> Iterator[dict[str, Any]]:
    """Deltas the way OpenAI streams tool calls: header (index, id, name) then argument pieces."""
    for index, call in enumerate(calls):
        header = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        yield {"tool_calls": [header]}
        for piece in split_text(call.arguments, chunk_size):
            yield {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}


def role_delta(turn: TextTurn | ToolCallsTurn | CutStreamTurn) -> dict[str, Any]:
    """The first delta of a stream: the role (content null when only tool calls follow)."""
    content = None if isinstance(turn, ToolCallsTurn) and not turn.text else ""
    return {"role": "assistant", "content": content, "refusal": None}


def completion_object(
    turn: TextTurn | ToolCallsTurn,
    completion_id: str,
    model: str,
    created: int,
    usage: dict[str, Any],
) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` object."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None, "refusal": None}
    if turn.reasoning:
        message["reasoning_content"] = turn.reasoning
    finish_reason = "stop"
    if isinstance(turn, ToolCallsTurn):
        finish_reason = "tool_calls"
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in turn.calls
        ]
    else:
        finish_reason = turn.finish_reason
        message["content"] = turn.text
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "system_fingerprint": FINGERPRINT,
        "choices": [choice],
        "usage": usage,
    }


def fake_embedding(text: str, dim: int) -> list[float]:
    """A deterministic unit vector for ``text`` (seeded by its SHA-256)."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
    rng = random.Random(seed)
    values = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


def embedding_inputs(raw: Any) -> list[str]:
    """Normalise the ``input`` of an embeddings request to one string per item."""
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list) and raw and all(isinstance(x, int) for x in raw):
        return [json.dumps(raw)]
    if isinstance(raw, list):
        return [x if isinstance(x, str) else json.dumps(x) for x in raw]
    raise ValueError("'input' must be a string, a list of strings or a list of token lists")


def embeddings_object(
    texts: list[str], model: str, dim: int, encoding_format: str | None
) -> dict[str, Any]:
    """An OpenAI ``list`` of ``embedding`` objects (float or base64 float32)."""
    data = []
    for index, text in enumerate(texts):
        vector: Any = fake_embedding(text, dim)
        if encoding_format == "base64":
            vector = base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode("ascii")
        data.append({"object": "embedding", "index": index, "embedding": vector})
    tokens = sum(max(1, len(t) // 4) for t in texts)
    return {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }
