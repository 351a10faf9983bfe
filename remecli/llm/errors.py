"""Map provider exceptions to remecli errors: one line that says what to do, and retryability."""

from __future__ import annotations

import re

from remecli.config.disk_full import disk_full_text, is_disk_full
from remecli.llm.endpoint import Endpoint


class LLMError(Exception):
    """An LLM failure phrased for the user, with whether retrying may help.

    A plain exception class (not a frozen dataclass): Python sets `__traceback__`,
    `__context__` and `__cause__` on it when it is raised through a context manager.
    """

    def __init__(self, message: str, retryable: bool = False, kind: str = "error") -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.kind = kind

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"LLMError({self.message!r}, retryable={self.retryable}, kind={self.kind!r})"


class ModelNotConfigured(LLMError):
    """No usable model is configured (OpenAI's URL without a key): no request is sent. Every
    request of a model built by `remecli.llm.model.build_chat_model` raises it first, so no
    model call of any part passes."""

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=False, kind="config")


class EmptyAnswerError(Exception):
    """The server answered 200 with no choices, or with choices holding no text and no tool
    calls: nothing to show, nothing to keep."""


class NotJSONAnswerError(Exception):
    """The server answered 200 with a body that is not JSON (or not the stream asked for)."""


def is_context_overflow(exc: BaseException) -> bool:
    """True when the provider says the request is longer than the model's window."""
    text = f"{getattr(exc, 'code', '') or ''} {exc}".lower()
    return any(
        marker in text
        for marker in (
            "context_length_exceeded",
            "context length",
            "maximum context",
            "too many tokens",
        )
    )


def classify(exc: BaseException, settings: Endpoint) -> LLMError:
    """Turn an openai / network exception into an `LLMError` the user can act on."""
    import openai

    if isinstance(exc, LLMError):
        return exc
    where = f"{settings.base_url} (model {settings.model_name})"
    if is_disk_full(exc):  # not the model's fault: say what to do about the disk
        path = getattr(exc, "filename", None) or "the working dir"
        return LLMError(
            f"{disk_full_text(path)}: this turn could not be saved. Free some space; "
            "your messages stay in this conversation and are written when space returns.",
            kind="disk_full",
        )
    if isinstance(exc, EmptyAnswerError):
        return LLMError(
            f"The model at {where} sent an empty answer ({exc}). Try again; if it keeps "
            "happening, check the server's log or llm.model_name=…",
            kind="empty_answer",
        )
    if isinstance(exc, NotJSONAnswerError):
        return LLMError(
            f"The server at {settings.base_url} answered with something that is not an API "
            f"response ({exc}). Check llm.base_url=… points at the OpenAI-compatible /v1 endpoint.",
            kind="bad_response",
        )
    if isinstance(exc, openai.APITimeoutError):
        return LLMError(
            f"The model at {where} did not answer within {settings.timeout:g} s. "
            "Try again, or raise llm.timeout=…",
            retryable=True,
            kind="timeout",
        )
    if isinstance(exc, openai.APIConnectionError) and _dropped_mid_answer(exc):
        return LLMError(
            f"The connection to {settings.base_url} dropped in the middle of the answer "
            f"({_cause_text(exc)}). Try again.",
            retryable=True,
            kind="dropped",
        )
    if isinstance(exc, openai.APIConnectionError):
        return LLMError(
            f"Cannot reach {settings.base_url}. Check that the server is running and "
            "llm.base_url=… (or REME_LLM_BASE_URL) is right.",
            retryable=True,
            kind="unreachable",
        )
    if isinstance(exc, openai.AuthenticationError):
        return LLMError(
            f"The server at {settings.base_url} rejected the API key (401). "
            "Set REME_LLM_API_KEY or llm.api_key=… to a valid key.",
            kind="auth",
        )
    if isinstance(exc, openai.PermissionDeniedError):
        return LLMError(f"Access denied by {where} (403): {_detail(exc)}", kind="auth")
    if isinstance(exc, openai.NotFoundError):
        return LLMError(
            f"Model '{settings.model_name}' was not found at {settings.base_url} (404). "
            "Pass llm.model_name=… (or REME_LLM_MODEL) with a model the server serves.",
            kind="model",
        )
    if isinstance(exc, openai.RateLimitError):
        return LLMError(
            f"Rate limited by {where} (429): {_detail(exc)}. Wait a moment and try again.",
            retryable=True,
            kind="rate_limit",
        )
    if isinstance(exc, openai.BadRequestError) and is_context_overflow(exc):
        return LLMError(
            f"The conversation is longer than the model's window: {_detail(exc)}. "
            "Run /compact, or lower max_input_length=…",
            kind="context_overflow",
        )
    if isinstance(exc, openai.InternalServerError):
        return LLMError(
            f"The server at {settings.base_url} failed ({exc.status_code}): {_detail(exc)}. "
            "Try again.",
            retryable=True,
            kind="server",
        )
    if isinstance(exc, openai.APIStatusError):
        return LLMError(f"{where} answered {exc.status_code}: {_detail(exc)}", kind="status")
    return LLMError(f"Unexpected error talking to {where}: {type(exc).__name__}: {exc}")


def _dropped_mid_answer(exc: BaseException) -> bool:
    """True when the server was reached but the answer's body was cut off."""
    cause = exc.__cause__ or exc.__context__
    return type(cause).__name__ in ("RemoteProtocolError", "ReadError")


def _cause_text(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return str(cause).split(" (")[0] if cause else "connection closed"


def _detail(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"]).rstrip(". ")
    text = str(getattr(exc, "message", exc)).rstrip(". ")
    # openai's own text for a body without a message: "Error code: 500" (- the body, if any)
    said = re.sub(r"^Error code: \d+( - )?", "", text).strip()
    return said or "its answer gave no reason"
