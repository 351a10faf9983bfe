"""Issue 21, item 4 in a real terminal (tmux): a message typed and sent while the TUI is still
starting is sent on its own, never merged with the next one ("SLOW onequeued message")."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.e2e.test_plain_and_oneshot import base_args
from tests.e2e.tmux_driver import TmuxSession, tmux_available
from tests.fakes.messages import content_text

pytestmark = pytest.mark.skipif(
    not tmux_available(), reason="tmux is not installed (.ci/run installs it)"
)


def test_a_message_sent_during_start_up_is_not_merged_with_the_next(
    fake_llm, tmp_path: Path
) -> None:
    fake_llm.set_fallback("nothing")
    fake_llm.add_text("Slow answer in small pieces. " * 5, chunk_size=3, chunk_delay=0.05)
    fake_llm.add_text("Second answer.")
    env = {
        "REME_LLM_API_KEY": "sk-test",
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    cmd = [
        *base_args(fake_llm, tmp_path),
        "memory.summarize=false",
        "search.embedding.backend=none",
    ]
    term = TmuxSession(cmd, cwd=tmp_path, env=env)
    try:
        term.type("SLOW one")  # at once: the terminal is not raw yet, Enter arrives as LF
        time.sleep(2)
        term.type("queued message")
        term.wait_for("Second answer", timeout=80)
        term.send("C-q")
        screen = term.wait_for("REMECLI-EXITED=0", timeout=60)
    finally:
        term.kill()
    said = [content_text(r.body["messages"][-1]) for r in fake_llm.chat_requests()]
    assert said[:2] == ["SLOW one", "queued message"], said
    assert "remecli resume=" in " ".join(screen.split())
