"""The chat calls of vector memory (extraction, decisions, grounded summaries): one plain request
each through the app's provider seam (`remecli.llm.model.build_chat_model`, the same endpoint
wiring as the chat and compaction), with the project's backoff and its user-facing errors."""

from __future__ import annotations

import logging

from remecli.config.settings import LLMSettings
from remecli.llm.chat_model import (
    ChatModel,
    JSONAnswerError,
    JSONSchema,
    JSONValue,
    system,
    user,
)

log = logging.getLogger(__name__)

NOTHING_TO_STORE = "<nothing to store>"


class MemoryModelError(RuntimeError):
    """The memory model call failed; the message says what to do (from `remecli.llm.errors`)."""

    def __init__(self, message: str, kind: str = "error", retryable: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable


class ChatClient:
    """Non-streamed answers from the model of `settings` (built on first use)."""

    def __init__(self, settings: LLMSettings, model: ChatModel | None = None) -> None:
        self.settings = settings
        self._model = model

    def model(self) -> ChatModel:
        """The chat model (from `settings` as they are at the first call)."""
        if self._model is None:
            from remecli.llm.model import build_chat_model

            self._model = build_chat_model(self.settings, stream=False)
        return self._model

    async def complete(
        self, system_text: str, user_text: str, what: str = "memory model call"
    ) -> str:
        """The model's answer text ("" when it held none); raises `MemoryModelError`."""
        from remecli.llm.errors import EmptyAnswerError, classify
        from remecli.llm.model_text import answer_text
        from remecli.llm.retry import call_with_backoff

        model = self.model()
        messages = [system(system_text), user(user_text)]
        try:
            return await call_with_backoff(
                lambda: answer_text(model, messages), self.settings.max_retries, what=what
            )
        except EmptyAnswerError:  # no choices, or no text in them: nothing to store
            return ""
        except Exception as exc:
            error = classify(exc, self.settings)
            raise MemoryModelError(error.message, error.kind, error.retryable) from None

    async def complete_json(
        self, system_text: str, user_text: str, schema: JSONSchema, what: str = "memory model call"
    ) -> JSONValue | str:
        """The answer's JSON, asked with `response_format` where the server takes it (a small
        local model then answers bare JSON); the answer's text when it held no JSON of that
        shape (e.g. the nothing-to-store marker); raises `MemoryModelError`."""
        from remecli.llm.errors import classify
        from remecli.llm.retry import call_with_backoff

        model = self.model()
        messages = [system(system_text), user(user_text)]
        try:
            return await call_with_backoff(
                lambda: model.complete_json(messages, schema), self.settings.max_retries, what=what
            )
        except JSONAnswerError as unreadable:
            return unreadable.answer
        except Exception as exc:
            error = classify(exc, self.settings)
            raise MemoryModelError(error.message, error.kind, error.retryable) from None

    async def close(self) -> None:
        """Close the HTTP connections (a later call opens new ones)."""
        if self._model is not None:
            await self._model.aclose()
            self._model = None


def says_nothing(answer: str) -> bool:
    """True when the model declined: `<nothing to store>` or an empty list."""
    text = answer.strip().lower()
    return NOTHING_TO_STORE in text or text in ("", "[]")
