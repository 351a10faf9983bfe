"""Helpers to build an Assistant against the fake LLM server in a temp workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from remecli.agent.assistant import Assistant
from remecli.config import load_settings


def make_settings(fake_llm, tmp_path: Path, *extra: str):
    """Settings pointing at the fake server, with a private working dir."""
    return load_settings(
        [
            "config=cli",
            f"llm.base_url={fake_llm.base_url}",
            "llm.api_key=sk-test",
            "llm.model_name=fake-model",
            f"working_dir={tmp_path / '.reme'}",
            f"tools.workspace={tmp_path}",
            "llm.timeout=5",
            "memory.summarize=false",  # summaries have their own tests; keep requests scripted
            "memory.dream.auto=false",  # so have background dreams
            "search.embedding.backend=none",  # keyword search only: no model load in UI tests
            *extra,
        ],
        environ={},
        cwd=tmp_path,
    )


async def collect(assistant: Assistant, text: str) -> list:
    """All core events of one reply."""
    return [event async for event in assistant.send(text)]


@pytest.fixture
def assistant_factory(fake_llm, tmp_path: Path):
    """Build an Assistant (extra key=value settings as arguments)."""
    made: list[Assistant] = []

    def build(*extra: str) -> Assistant:
        assistant = Assistant(make_settings(fake_llm, tmp_path, *extra), cwd=tmp_path)
        made.append(assistant)
        return assistant

    yield build
