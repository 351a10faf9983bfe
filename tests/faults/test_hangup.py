"""Issue 25.1: closing the terminal while a background summary runs ends remecli in seconds.

The TUI runs in tmux; a conversation is handed to the summarizer (`/new`), whose model hangs.
The window is closed (`TmuxSession.close`: SIGHUP only, like closing a terminal). Before, the main
thread stayed blocked on Textual's writer queue forever and held the summary's pending record.
Now the process exits within a few seconds, the summary is left pending, and the next start
finishes it exactly once.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from remecli.knowledge.summary.summarizer import NOTHING_MARKER
from tests.e2e.test_plain_and_oneshot import Pty
from tests.e2e.tmux_driver import TmuxSession, _processes_of_session, tmux_available
from tests.fakes.faulty_openai import FaultyOpenAIServer

pytestmark = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")
REPO = Path(__file__).resolve().parents[2]


def _remecli_pids(term: TmuxSession) -> list[int]:
    assert term.pane_pid is not None
    found = []
    for pid in _processes_of_session(term.pane_pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"-m" in command and b"remecli" in command:  # python -m remecli …
            found.append(pid)
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.split(") ", 1)[1][0] != "Z"


def _requests_naming(server: FaultyOpenAIServer, words: str) -> int:
    return sum(words in json.dumps(r.body) for r in server.chat_requests())


@pytest.mark.timeout(400)  # a real terminal and two runs on a shared machine
def test_closed_terminal_during_a_summary_exits_and_the_restart_finishes_it(
    fake_llm: FaultyOpenAIServer, tmp_path: Path
) -> None:
    working_dir = tmp_path / ".reme"
    settings = [
        f"llm.base_url={fake_llm.base_url}",
        "llm.model_name=fake-model",
        "llm.max_retries=0",
        "search.embedding.backend=none",
        f"working_dir={working_dir}",
    ]
    fake_llm.add_text("Hi there, noted.")
    fake_llm.add_hang(120)  # the summary's model call: no answer while the window closes
    fake_llm.set_fallback(NOTHING_MARKER)
    env = {
        "REME_LLM_API_KEY": "sk-test",
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "PYTHONPATH": str(REPO),
    }
    term = TmuxSession([sys.executable, "-m", "remecli", *settings], cwd=tmp_path, env=env)
    try:
        term.wait_for("ready", timeout=120)
        term.type("remember the harbour code word: pelican")
        term.wait_for("Hi there, noted.", timeout=60)
        term.type("/new")
        deadline = time.monotonic() + 60
        while _requests_naming(fake_llm, "pelican") < 2:  # the chat turn, then the summary
            assert time.monotonic() < deadline, "the summary never reached the model"
            time.sleep(0.2)
        pids = _remecli_pids(term)
        assert pids, "remecli is not running in the pane"
        time.sleep(1.0)  # the UI keeps drawing (the memory task spinner) while it waits
        term.close()  # SIGHUP, nothing more
        closed = time.monotonic()
        while any(_alive(pid) for pid in pids) and time.monotonic() - closed < 60:
            time.sleep(0.2)
        took = time.monotonic() - closed
        assert not any(_alive(pid) for pid in pids), "remecli still running 60 s after SIGHUP"
        assert took < 15, f"remecli took {took:.1f} s to exit after SIGHUP"
    finally:
        term.kill()
    pending = list((working_dir / "sessions" / "pending").glob("*.json"))
    assert len(pending) == 1, pending  # left pending, not lost
    before = _requests_naming(fake_llm, "pelican")
    # the restart is a session (a `-p` answer leaves earlier runs' pending work alone)
    again = Pty(
        [sys.executable, "-m", "remecli", *settings, "llm.api_key=sk-test", "ui=plain"], tmp_path
    )
    again.read_until("/help for commands", timeout=280)
    again.write("hello again\r")  # the agent (and its memory) starts with the first message
    again.read_until(NOTHING_MARKER, timeout=280)
    again.write("/exit\r")
    assert again.wait(timeout=240) == 0
    assert _requests_naming(fake_llm, "pelican") - before == 1  # summarized exactly once
    assert list((working_dir / "sessions" / "pending").glob("*.json")) == []
