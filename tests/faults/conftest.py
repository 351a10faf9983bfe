"""Fault-injection fixtures: the Assistant factory of the agent tests, and the faulty server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.conftest import assistant_factory  # noqa: F401  (fixture)
from tests.fakes.faulty_openai import FaultyOpenAIServer


@pytest.fixture
def fake_llm() -> Iterator[FaultyOpenAIServer]:
    """The fault-injecting fake server (overrides the plain one for the fault tests)."""
    server = FaultyOpenAIServer(plain_only=True).start()
    try:
        yield server
    finally:
        server.stop()


def run_one_shot(
    base_url: str,
    working_dir: Path,
    question: str,
    *settings: str,
    cwd: Path,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`remecli -p QUESTION` as a real process against the fake server (no retries, no
    summaries, no embeddings), its memory in `working_dir`."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "remecli",
            "config=cli",
            f"llm.base_url={base_url}",
            "llm.model_name=fake-model",
            "llm.max_retries=0",
            "memory.summarize=false",
            "search.embedding.backend=none",
            f"working_dir={working_dir}",
            *settings,
            "-p",
            question,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "REME_LLM_API_KEY": "sk-test"},
    )
