"""Scripted turns for the fake OpenAI server: what one chat request gets as its answer.

A *turn* is one answer to one ``POST /v1/chat/completions``. The server pops turns from a FIFO
queue; see :mod:`tests.fakes.fake_openai` for the API that builds them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_CHUNK_SIZE = 8

ToolCallSpec = tuple[str, dict[str, Any] | str] | tuple[str, dict[str, Any] | str, str]
"""``(name, arguments)`` or ``(name, arguments, call_id)``; a ``str`` argument is sent verbatim."""


@dataclass
class ToolCall:
    """One tool call the fake model makes; ``arguments`` is the JSON text sent on the wire."""

    name: str
    arguments: str
    id: str | None = None


@dataclass
class TextTurn:
    """Answer with text (optionally preceded by ``reasoning_content``)."""

    text: str
    chunk_size: int = DEFAULT_CHUNK_SIZE
    delay: float = 0.0
    chunk_delay: float = 0.0
    reasoning: str | None = None
    usage: dict[str, int] | None = None
    finish_reason: str = "stop"


@dataclass
class ToolCallsTurn:
    """Answer with (optional text and) one or more tool calls, finish_reason ``tool_calls``."""

    calls: list[ToolCall]
    text: str = ""
    chunk_size: int = DEFAULT_CHUNK_SIZE
    delay: float = 0.0
    chunk_delay: float = 0.0
    reasoning: str | None = None
    usage: dict[str, int] | None = None


@dataclass
class ErrorTurn:
    """Answer with an HTTP error and an OpenAI error body ``{"error": {...}}``."""

    status: int
    message: str
    type: str | None = None
    code: str | None = None
    param: str | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class CutStreamTurn:
    """Stream ``text`` then drop the connection: no finish chunk, no ``[DONE]``.

    With ``error_message`` the stream instead ends with a mid-stream error event
    ``data: {"error": {...}}`` (as vLLM and some gateways send). Non-streaming requests get a
    truncated body (Content-Length larger than what is sent).
    """

    text: str
    chunk_size: int = DEFAULT_CHUNK_SIZE
    delay: float = 0.0
    chunk_delay: float = 0.0
    error_message: str | None = None


Turn = TextTurn | ToolCallsTurn | ErrorTurn | CutStreamTurn
Handler = Callable[[dict[str, Any]], "Turn | str"]


@dataclass
class HandlerTurn:
    """Compute the answer from the request body at request time (returns a turn or a str)."""

    handler: Handler


QueuedTurn = Turn | HandlerTurn


def default_error_type(status: int) -> str:
    """The ``error.type`` OpenAI uses for an HTTP status."""
    if status == 429:
        return "requests"
    if status >= 500:
        return "server_error"
    return "invalid_request_error"


def make_tool_calls(calls: Sequence[ToolCallSpec]) -> list[ToolCall]:
    """Normalise ``(name, args[, id])`` tuples into :class:`ToolCall` objects."""
    result: list[ToolCall] = []
    for spec in calls:
        name, arguments = spec[0], spec[1]
        call_id = spec[2] if len(spec) > 2 else None  # type: ignore[misc]
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        result.append(ToolCall(name=name, arguments=text, id=call_id))
    return result


def resolve_turn(queued: QueuedTurn, body: dict[str, Any]) -> Turn:
    """Run a handler turn against the request body; plain turns are returned as they are."""
    if not isinstance(queued, HandlerTurn):
        return queued
    answer = queued.handler(body)
    if isinstance(answer, str):
        return TextTurn(answer)
    if isinstance(answer, HandlerTurn):
        raise TypeError("fake server: a handler must return a turn or a str, not a HandlerTurn")
    return answer


def turn_from_dict(data: dict[str, Any]) -> Turn:
    """Build a turn from its JSON form (used by ``--script``).

    Forms: ``{"type": "text", "text": "hi", "chunk_size": 4, "delay": 0, "reasoning": null}``,
    ``{"type": "tool_calls", "calls": [{"name": "ls", "arguments": {"path": "."}}], "text": ""}``,
    ``{"type": "error", "status": 429, "message": "slow down", "code": null}``,
    ``{"type": "cut", "text": "partial"}``.
    """
    options = {k: v for k, v in data.items() if k != "type"}
    kind = data.get("type", "text")
    if kind == "text":
        return TextTurn(**options)
    if kind == "tool_calls":
        specs = [
            (c["name"], c.get("arguments", {}), c["id"])
            if c.get("id")
            else (c["name"], c.get("arguments", {}))
            for c in options.pop("calls")
        ]
        return ToolCallsTurn(calls=make_tool_calls(specs), **options)
    if kind == "error":
        return ErrorTurn(**options)
    if kind == "cut":
        return CutStreamTurn(**options)
    raise ValueError(f"fake server: unknown turn type {kind!r} (text, tool_calls, error, cut)")
