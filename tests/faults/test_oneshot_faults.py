"""`-p` against a misbehaving server: the user reads what happened and the exit code says it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.faulty_openai import FaultyOpenAIServer


@pytest.mark.parametrize(
    ("fault", "words"),
    [("add_empty_choices", "empty answer"), ("add_garbage", "not an API response")],
)
def test_one_shot_exits_non_zero_and_says_what_happened(
    fake_llm: FaultyOpenAIServer, tmp_path: Path, fault: str, words: str
) -> None:
    fake_llm.set_fallback("ok")  # background summaries, if any, get an answer
    getattr(fake_llm, fault)()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "remecli",
            "config=cli",
            f"llm.base_url={fake_llm.base_url}",
            "llm.model_name=fake-model",
            "llm.max_retries=0",
            "memory.summarize=false",
            "search.embedding.backend=none",
            f"working_dir={tmp_path / '.reme'}",
            "-p",
            "hello",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "REME_LLM_API_KEY": "sk-test"},
    )
    assert proc.returncode != 0, (proc.stdout, proc.stderr)
    assert words in proc.stderr and "Traceback" not in proc.stderr
