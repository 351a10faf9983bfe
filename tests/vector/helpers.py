"""Helpers of the ReMe tests: a ReMe wired to the fake OpenAI server, and scripted answers."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from remecli.vector import ReMe
from tests.fakes import FakeOpenAIServer


def make_reme(
    fake: FakeOpenAIServer, working_dir: Path, store: dict[str, Any], **kwargs: Any
) -> ReMe:
    """ReMe whose LLM and embeddings are the fake server (64-d vectors)."""
    return ReMe(
        working_dir=working_dir,
        default_llm_config={"base_url": fake.base_url, "api_key": "sk-test", "max_retries": 0},
        default_embedding_model_config={
            "backend": "openai",
            "base_url": fake.base_url,
            "api_key": "sk-test",
            "model_name": "fake-embedding",
            "dimensions": 64,
        },
        default_vector_store_config=store,
        **kwargs,
    )


def facts(*contents: str, when: str = "2026-03-01 10:00:00") -> str:
    """An extraction answer (fenced JSON, as models often write it)."""
    items = [{"content": c, "when_to_use": "", "message_time": when} for c in contents]
    return "Here you go:\n```json\n" + json.dumps(items) + "\n```"


def user_prompt(body: dict[str, Any]) -> str:
    """The user message of a chat request."""
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def label_of(body: dict[str, Any], content: str) -> str:
    """The E-label the decision prompt gave the existing memory with this content."""
    pattern = r'"id": "(E\d+)",\s*"content": ' + re.escape(json.dumps(content, ensure_ascii=False))
    found = re.search(pattern, user_prompt(body))
    assert found, f"{content!r} is not among the existing memories shown to the model"
    return found.group(1)
