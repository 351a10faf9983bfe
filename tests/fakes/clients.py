"""Real openai clients pointed at the fake server (no SDK retries), for the fake's self-tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai

from tests.fakes.fake_openai import FakeOpenAIServer

USER_HI = [{"role": "user", "content": "hi"}]
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def sync_client(server: FakeOpenAIServer, **kwargs: Any) -> openai.OpenAI:
    """A real openai client pointed at the fake server, without SDK retries."""
    return openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0, **kwargs)


def async_client(server: FakeOpenAIServer, **kwargs: Any) -> openai.AsyncOpenAI:
    """The async flavour of :func:`sync_client`."""
    return openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0, **kwargs)
