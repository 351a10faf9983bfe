"""JSON from a model answer: the one reader (json-repair), tolerant of fences and prose.

Models wrap JSON in ```json fences, put a sentence before or after it, or leave a trailing
comma. The answer is cut to the JSON part (the first fenced block that holds some, else the
whole answer; then from the first opening bracket of the wanted kind to the last closing one)
and parsed once with json-repair.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from remecli.llm.chat_model import JSONAnswerError, JSONSchema, JSONValue

Shape = Literal["object", "array"]
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_BRACKETS = {"object": ("{", "}"), "array": ("[", "]")}


def json_from_answer(answer: str, shape: Shape | None = None) -> JSONValue | None:
    """The JSON object or array in `answer` (of `shape` when given); None if there is none."""
    span = _json_span(_json_part(answer or "", shape), shape)
    if span is None:
        return None
    import json_repair

    try:
        value = json_repair.loads(span)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict) and shape != "array":
        return value
    if isinstance(value, list) and shape != "object":
        return value
    return None


def json_object(answer: str) -> dict[str, Any] | None:
    """The JSON object in `answer`, or None."""
    value = json_from_answer(answer, "object")
    return value if isinstance(value, dict) else None


def require_json(answer: str, schema: JSONSchema | None = None) -> JSONValue:
    """The JSON value in `answer`, checked against `schema`; raises `JSONAnswerError`.

    A pydantic model is validated in full (the problem names the first wrong field); a JSON
    schema's top-level `type` ("object" or "array") decides the shape looked for.
    """
    shape = _shape_of(schema)
    value = json_from_answer(answer, shape)
    if value is None:
        what = {"object": "a JSON object", "array": "a JSON array", None: "JSON"}[shape]
        raise JSONAnswerError(f"it is not {what}", answer)
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        try:
            schema.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise JSONAnswerError(f"`{where}`: {first['msg']}", answer) from None
    return value


def _shape_of(schema: JSONSchema | None) -> Shape | None:
    if schema is None:
        return None
    if isinstance(schema, type):
        return "object"  # a pydantic model is a JSON object
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    return kind if kind in ("object", "array") else None


def _json_part(answer: str, shape: Shape | None) -> str:
    """The first fenced block that holds JSON (of `shape`), else the whole answer."""
    for fenced in _FENCE.finditer(answer):
        block = fenced.group(1).strip()
        if _json_span(block, shape) is not None:
            return block
    return answer.strip()


def _json_span(text: str, shape: Shape | None) -> str | None:
    """From the first opening bracket (of `shape`) to the last matching closing one."""
    kinds = [shape] if shape else ["object", "array"]
    best: tuple[int, int] | None = None
    for kind in kinds:
        opener, closer = _BRACKETS[kind]
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end and (best is None or start < best[0]):
            best = (start, end)
    return None if best is None else text[best[0] : best[1] + 1]
