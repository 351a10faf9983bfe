"""What the llm package needs to know of the configured endpoint (`config.LLMSettings` fits)."""

from __future__ import annotations

from typing import Protocol


class Endpoint(Protocol):
    """An OpenAI-compatible chat endpoint: where, which model, how long to wait."""

    @property
    def api_key(self) -> str: ...
    @property
    def base_url(self) -> str: ...
    @property
    def model_name(self) -> str: ...
    @property
    def temperature(self) -> float | None: ...
    @property
    def timeout(self) -> float: ...


OPENAI_DEFAULT_URL = "https://api.openai.com/v1"


def missing_key_message(endpoint: Endpoint) -> str | None:
    """Why `endpoint` cannot be called as configured (OpenAI's URL without a key), or None."""
    if not endpoint.api_key and endpoint.base_url.rstrip("/") == OPENAI_DEFAULT_URL:
        return (
            "No API key configured. Set REME_LLM_API_KEY (or put it in .env), or pass "
            "llm.api_key=…; for a local OpenAI-compatible server pass llm.base_url=http://…/v1."
        )
    return None
