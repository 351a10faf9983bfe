"""Helpers for the summarizer tests: settings against the fake server, dated messages."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from remecli.config.settings import LLMSettings, Settings
from remecli.notes.layout import WorkingDir
from tests.fakes.messages import tool_texts

DAY = dt.date(2025, 1, 31)
DAILY = "memory/2025-01-31.md"


def make_settings(fake_llm, tmp_path: Path, **overrides: Any) -> Settings:
    """Settings pointing at the fake server, without retries (a 500 fails at once)."""
    return Settings(
        working_dir=str(tmp_path / ".reme"),
        max_input_length=overrides.pop("max_input_length", 16_000),
        llm=LLMSettings(
            base_url=fake_llm.base_url, api_key="sk-test", model_name="fake-model", max_retries=0
        ),
        **overrides,
    )


def user(text: str, hhmm: str, day: dt.date = DAY) -> Any:
    """A user message sent at `hhmm` on `day`."""
    from agentscope.message import UserMsg

    return UserMsg(name="user", content=text, created_at=f"{day.isoformat()}T{hhmm}:00")


def assistant(text: str, hhmm: str, day: dt.date = DAY) -> Any:
    """An assistant message sent at `hhmm` on `day`."""
    from agentscope.message import AssistantMsg

    return AssistantMsg(name="ReMe", content=text, created_at=f"{day.isoformat()}T{hhmm}:00")


def tool_messages(body: dict) -> list[str]:
    """Contents of the tool results in a chat request, in order."""
    return tool_texts(body)


def first_user_text(body: dict) -> str:
    """Text of the first user message of a chat request (the transcript)."""
    for message in body["messages"]:
        if message["role"] == "user":
            content = message["content"]
            if isinstance(content, str):
                return content
            return "".join(part.get("text", "") for part in content)
    return ""


@pytest.fixture
def working_dir(tmp_path: Path) -> WorkingDir:
    """A fresh working dir with its folders and starter MEMORY.md."""
    return WorkingDir(tmp_path / ".reme").ensure()
