"""`-p -` reads the question from stdin; SIGTERM during a plain-mode reply saves and exits
(issue 16 minor items, issue 15 item 9); /copy and /resume through the plain front-end."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from tests.e2e.test_plain_and_oneshot import Pty, base_args, run


def test_dash_p_dash_reads_the_question_from_stdin(fake_llm, tmp_path: Path) -> None:
    fake_llm.add_text("Piped answer.")
    proc = run(fake_llm, tmp_path, "-p", "-", input="what is piped\nover two lines?\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Piped answer."
    sent = fake_llm.chat_requests()[0].body["messages"][-1]
    text = sent["content"] if isinstance(sent["content"], str) else sent["content"][0]["text"]
    assert text == "what is piped\nover two lines?"


def test_dash_p_dash_with_nothing_on_stdin_says_what_to_do(fake_llm, tmp_path: Path) -> None:
    proc = run(fake_llm, tmp_path, "-p", "-", input="")
    assert proc.returncode == 2
    assert "empty question on stdin" in proc.stderr and "Traceback" not in proc.stderr


def test_sigterm_during_a_plain_reply_saves_and_exits(fake_llm, tmp_path: Path) -> None:
    fake_llm.add_text("word " * 400, chunk_size=5, chunk_delay=0.05)
    term = Pty([*base_args(fake_llm, tmp_path), "ui=plain", "memory.summarize=false"], tmp_path)
    term.read_until("/help for commands")
    term.write("talk for a long time\r")
    term.read_until("word word word")
    os.kill(term.pid, signal.SIGTERM)
    assert term.wait(timeout=30) == 0
    out = term.output.decode(errors="replace")
    assert "long-term memory" not in out  # summaries off: only the session is kept
    states = list((tmp_path / ".reme" / "sessions").glob("*.state.json"))
    assert len(states) == 1
    saved = json.loads(states[0].read_text())
    users = [m for m in saved["agent_state"]["context"] if m["role"] == "user"]
    assert users, "the conversation was saved"


def test_plain_copy_prints_when_not_a_terminal_and_resume_lists_sessions(
    fake_llm, tmp_path: Path
) -> None:
    fake_llm.add_text("First answer:\n\n```sh\nmake ship\n```\n")
    term = Pty([*base_args(fake_llm, tmp_path), "ui=plain", "memory.summarize=false"], tmp_path)
    term.read_until("/help for commands")
    term.write("remember the first thing\r")
    term.read_until("First answer")
    term.write("/copy 1\r")
    term.read_until("code block 1 (1 line, 9 characters)")
    term.write("/new\r")
    term.read_until("New conversation")
    term.write("/resume\r")
    term.read_until("resume which")
    term.write("1\r")
    term.read_until("Resumed conversation")
    term.write("/exit\r")
    assert term.wait() == 0
