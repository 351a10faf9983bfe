"""Run `remecli` as a user does: a real `python -m remecli` process, without the REME_* variables
of the environment the tests run in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_remecli(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`python -m remecli ARGS` in `cwd`; stdout and stderr captured as text."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    return subprocess.run(
        [sys.executable, "-m", "remecli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def fake_llm_settings(working_dir: Path, base_url: str) -> list[str]:
    """key=value settings for a command against the fake LLM at `base_url`: no retries,
    keyword-only search."""
    return [
        f"working_dir={working_dir}",
        f"llm.base_url={base_url}",
        "llm.api_key=sk-test",
        "llm.model_name=fake-model",
        "llm.max_retries=0",
        "search.embedding.backend=none",
    ]


# Code for a probe run with `python -c`: `FreedAtTeardown(path)` creates `path` only if the
# interpreter is torn down at exit (it frees __main__'s globals), not when the process ends at once.
FREED_AT_TEARDOWN = r"""

class FreedAtTeardown:
    def __init__(self, path):
        self.path, self.opener = path, open  # kept: module globals are gone by then

    def __del__(self):  # runs when the interpreter frees __main__'s globals at exit
        self.opener(self.path, "w").close()
"""
