"""In a real terminal (tmux) the TUI paints before it validates the settings: a value that is not
allowed still ends `remecli` with its one actionable line and exit code 2, as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.test_plain_and_oneshot import base_args
from tests.e2e.tmux_driver import TmuxSession, tmux_available

pytestmark = pytest.mark.skipif(
    not tmux_available(), reason="tmux is not installed (.ci/run installs it)"
)


def test_a_bad_setting_value_ends_the_tui_with_its_line_and_exit_2(
    fake_llm, tmp_path: Path
) -> None:
    env = {
        "REME_LLM_API_KEY": "sk-test",
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    cmd = [*base_args(fake_llm, tmp_path), "llm.max_retries=abc"]
    term = TmuxSession(cmd, cwd=tmp_path, env=env)
    try:
        screen = " ".join(term.wait_for("REMECLI-EXITED=", timeout=60).split())
    finally:
        term.kill()
    assert "remecli: invalid setting 'llm.max_retries' (got 'abc'):" in screen
    assert "REMECLI-EXITED=2" in screen and "Traceback" not in screen
