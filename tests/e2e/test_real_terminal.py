"""The installed `remecli` console script in a real terminal (tmux) against the fake LLM server."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.e2e.tmux_driver import TmuxSession, tmux_available

pytestmark = pytest.mark.skipif(
    not tmux_available(), reason="tmux is not installed (.ci/run installs it)"
)


def remecli_script() -> str:
    beside = Path(sys.executable).parent / "remecli"
    found = str(beside) if beside.exists() else shutil.which("remecli")
    if not found:
        pytest.fail("the remecli console script is not installed: run pip install -e '.[test]'")
    return found


def test_ask_see_streamed_answer_history_and_exit(fake_llm, tmp_path: Path) -> None:
    fake_llm.add_text("The answer is **forty-two**, streamed in pieces.", chunk_size=4, delay=0.05)
    fake_llm.add_text("Second answer.")
    env = {"REME_LLM_API_KEY": "sk-test", "HOME": str(tmp_path), "TERM": "xterm-256color"}
    cmd = [
        remecli_script(),
        "config=cli",
        f"llm.base_url={fake_llm.base_url}",
        "llm.model_name=fake-model",
    ]
    term = TmuxSession(cmd, cwd=tmp_path, env=env)
    try:
        term.wait_for("ready", timeout=60)
        term.type("What is the answer?")
        screen = term.wait_for("streamed in pieces", timeout=30)
        assert "forty-two" in screen and "What is the answer?" in screen
        assert "fake-model" in screen  # status line
        term.type("/history")
        # the page's footer, not the word "history" (the typed command already shows that)
        screen = term.wait_for("Esc / q to close", timeout=10)
        assert "What is the answer?" in screen
        term.send("Escape")
        term.wait_gone("Esc / q to close", timeout=10)
        term.type("/exit")
        term.wait_for("REMECLI-EXITED=0", timeout=30)
    finally:
        term.kill()
    sent = fake_llm.chat_requests()[0]
    content = sent.body["messages"][-1]["content"]
    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
    assert text == "What is the answer?"
