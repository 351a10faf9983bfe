"""`-p` against a misbehaving server: the user reads what happened and the exit code says it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_process import run_one_shot
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
    proc = run_one_shot(fake_llm.base_url, tmp_path / ".reme", "hello", cwd=tmp_path)
    assert proc.returncode != 0, (proc.stdout, proc.stderr)
    assert words in proc.stderr and "Traceback" not in proc.stderr
