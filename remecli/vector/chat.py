"""The chat calls of vector memory (extraction, decisions, grounded summaries): one
OpenAI-compatible request each, with the project's backoff and its user-facing error messages,
and a tolerant reader for the JSON the model answers with."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from remecli.config.settings import LLMSettings

log = logging.getLogger(__name__)

NOTHING_TO_STORE = "<nothing to store>"
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


class MemoryModelError(RuntimeError):
    """The memory model call failed; the message says what to do (from `remecli.llm.errors`)."""

    def __init__(self, message: str, kind: str = "error", retryable: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable


class ChatClient:
    """Non-streaming chat completions against `settings.base_url`."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self._client: Any = None

    def _get_client(self) -> Any:
        if self._client is None:
            from openai import AsyncOpenAI

            self._client = AsyncOpenAI(
                api_key=self.settings.api_key or "not-needed",
                base_url=self.settings.base_url,
                timeout=self.settings.timeout,
                max_retries=0,
            )
        return self._client

    async def complete(self, system: str, user: str, what: str = "memory model call") -> str:
        """The model's answer text; raises `MemoryModelError` (one clear line)."""
        from remecli.llm.errors import classify
        from remecli.llm.retry import call_with_backoff

        client = self._get_client()
        extra = (
            {} if self.settings.temperature is None else {"temperature": self.settings.temperature}
        )

        async def call() -> Any:
            return await client.chat.completions.create(
                model=self.settings.model_name,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                stream=False,
                **extra,
            )

        try:
            response = await call_with_backoff(call, self.settings.max_retries, what=what)
        except Exception as exc:
            error = classify(exc, self.settings)
            raise MemoryModelError(error.message, error.kind, error.retryable) from None
        if not response.choices:
            return ""
        return response.choices[0].message.content or ""

    async def close(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            await self._client.close()
            self._client = None


def read_json(answer: str) -> Any:
    """The JSON value in a model answer (bare, fenced, or embedded in prose); None if absent."""
    text = answer.strip()
    candidates = [m.group(1).strip() for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            pass
        for opener, closer in (("[", "]"), ("{", "}")):
            start, end = candidate.find(opener), candidate.rfind(closer)
            if 0 <= start < end:
                try:
                    return json.loads(candidate[start : end + 1])
                except ValueError:
                    continue
    return None


def says_nothing(answer: str) -> bool:
    """True when the model declined: `<nothing to store>` or an empty list."""
    text = answer.strip().lower()
    return NOTHING_TO_STORE in text or text in ("", "[]")
