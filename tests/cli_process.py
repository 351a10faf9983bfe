"""Run `remecli` as a user does: a real `python -m remecli` process, without the REME_* variables
of the environment the tests run in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_remecli(
    *args: str,
    cwd: Path,
    timeout: float = 60,
    input: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`python -m remecli ARGS` in `cwd` (`input` on stdin, `env` added to the user's
    environment); stdout and stderr captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "remecli", *args],
        cwd=cwd,
        env={**_user_env(), **(env or {})},
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_remecli(*args: str, cwd: Path) -> subprocess.Popen[str]:
    """`python -m remecli ARGS` started in `cwd`; stdout and stderr piped as text."""
    return subprocess.Popen(
        [sys.executable, "-m", "remecli", *args],
        cwd=cwd,
        env=_user_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_one_shot(
    base_url: str,
    working_dir: Path,
    question: str,
    *settings: str,
    cwd: Path,
    summarize: bool = False,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`remecli -p QUESTION` against the fake LLM at `base_url` (`fake_llm_settings`; no
    summary unless `summarize`), its memory in `working_dir`; `settings` go before `-p`."""
    no_summary = [] if summarize else ["memory.summarize=false"]
    options = [*fake_llm_settings(working_dir, base_url), *no_summary, *settings]
    return run_remecli("config=cli", *options, "-p", question, cwd=cwd, timeout=timeout)


def _user_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("REME_")}


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
