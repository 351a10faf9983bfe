"""The real-model tier's switch and settings: skipped unless REMECLI_REAL_MODEL_URL is set.

    REMECLI_REAL_MODEL_URL=http://127.0.0.1:8080/v1 [REMECLI_REAL_MODEL_NAME=qwen]
    [REMECLI_REAL_MODEL_KEY=...] python -m pytest -m realmodel tests/realmodel

Any OpenAI-compatible server (llama.cpp's llama-server, Ollama, LM Studio, vLLM). A small
local model on a CPU is slow: each test may take minutes, so the timeout is generous and the
tier never runs in CI (the variable is not set there).
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest

from remecli.config.settings import LLMSettings, Settings

URL_VARIABLE = "REMECLI_REAL_MODEL_URL"
REAL_MODEL = [
    pytest.mark.realmodel,
    pytest.mark.skipif(
        not os.environ.get(URL_VARIABLE),
        reason=f"needs a real model: set {URL_VARIABLE} to an OpenAI-compatible base URL",
    ),
    pytest.mark.timeout(3600),
]
WINDOW = 8_000  # llama-server -c 8192: what the note serves


def model_name(base_url: str, key: str) -> str:
    """REMECLI_REAL_MODEL_NAME, else the first model the server lists."""
    named = os.environ.get("REMECLI_REAL_MODEL_NAME", "")
    if named:
        return named
    request = urllib.request.Request(
        base_url.rstrip("/") + "/models", headers={"Authorization": f"Bearer {key}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        listed = json.load(response)
    return str(listed["data"][0]["id"])


def real_settings(tmp_path: Path, **overrides: object) -> Settings:
    """Settings for the real endpoint: deterministic answers, a CPU model's patience."""
    base_url = os.environ[URL_VARIABLE]
    key = os.environ.get("REMECLI_REAL_MODEL_KEY", "sk-local")
    settings = Settings(
        working_dir=str(tmp_path / ".reme"),
        max_input_length=WINDOW,
        llm=LLMSettings(
            base_url=base_url,
            api_key=key,
            model_name=model_name(base_url, key),
            temperature=0.0,
            timeout=900.0,
            max_retries=1,
        ),
    )
    return settings.with_changes({"search.embedding.backend": "none", **overrides})
