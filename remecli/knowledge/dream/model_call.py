"""One plain model request (no tools) and reading a JSON object out of its answer."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


async def ask(model: Any, messages: list[Any], max_retries: int) -> str:
    """The text of the model's complete answer to `messages` (retried on transient errors)."""
    from remecli.llm.retry import call_with_backoff

    return await call_with_backoff(lambda: _ask_once(model, messages), max_retries, what="dream")


async def _ask_once(model: Any, messages: list[Any]) -> str:
    from remecli.llm.model_text import answer_text

    return await answer_text(model, messages, "dream request")


def json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in `text` (bare, fenced, or between the first `{` and the last `}`)."""
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text or "")]
    start, end = (text or "").find("{"), (text or "").rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None
