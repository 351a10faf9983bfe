"""Structured output where the server has it: `response_format` for JSON answers.

`complete_json` asks with `response_format` (`json_schema` when a schema is given, else
`json_object`); servers that have it (OpenAI, llama.cpp's server, vLLM, Ollama) then answer bare
JSON, which small local models do not manage when only asked in words (the local-model note:
0/3 parse as-is without it, 3/3 with it). A server that refuses it (a 400 that names
`response_format`) is remembered per endpoint and asked in plain words from then on; the answer
is read by the one JSON reader either way.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from remecli.llm.chat_model import JSONSchema

# endpoints (base URL and model) that answered 400 to `response_format`, for this process
_REFUSED: set[tuple[str, str]] = set()


def response_format(schema: JSONSchema | None) -> dict[str, Any]:
    """The `response_format` to ask with: the schema when there is one, else any JSON object."""
    if schema is None:
        return {"type": "json_object"}
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        name, body = schema.__name__, schema.model_json_schema()
    else:
        name, body = "answer", dict(schema)
    return {"type": "json_schema", "json_schema": {"name": name, "schema": body}}


def accepted(endpoint: tuple[str, str]) -> bool:
    """Whether `endpoint` has not refused `response_format` yet (worth asking with it)."""
    return endpoint not in _REFUSED


def remember_refusal(endpoint: tuple[str, str]) -> None:
    """Ask `endpoint` without `response_format` from now on."""
    _REFUSED.add(endpoint)


def refused_response_format(error: BaseException) -> bool:
    """Whether `error` is the server saying it does not take `response_format` (a 400)."""
    import openai

    if not isinstance(error, openai.BadRequestError):
        return False
    text = f"{error} {getattr(error, 'param', '') or ''}".lower()
    return "response_format" in text or "json_schema" in text
