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
