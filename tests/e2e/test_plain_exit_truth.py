"""What the plain REPL says on its way out is true and said once: "Saving this conversation to
long-term memory" only when a summary is handed over (with `memory.summarize=false` only the
transcript is kept, as it was all along, and nothing is said about saving); a summary's outcome
shown as it happened is not printed again at exit."""

from __future__ import annotations

import re
import time
from pathlib import Path

from tests.e2e.test_plain_and_oneshot import Pty, base_args, run
from tests.fakes.card_model import is_card_summarizer
from tests.fakes.memory_model import is_summarizer
from tests.fakes.turns import ErrorTurn


def test_no_saving_line_when_summaries_are_off(fake_llm, tmp_path: Path) -> None:
    fake_llm.add_text("Hello there.")
    proc = run(fake_llm, tmp_path, "ui=plain", "memory.summarize=false", input="hi\n/exit\n")
    assert proc.returncode == 0, proc.stderr
    assert "Hello there." in proc.stdout
    assert "long-term memory" not in proc.stdout + proc.stderr  # was: "Saving this conversation…"
    assert "To continue this conversation" in proc.stdout + proc.stderr  # the transcript is kept
    assert len(fake_llm.chat_requests()) == 1  # the answer; no summary
    assert list((tmp_path / ".reme" / "sessions").glob("*.jsonl"))


def test_the_saving_line_when_a_summary_is_handed_over(fake_llm, tmp_path: Path) -> None:
    fake_llm.add_text("Hello there.")
    proc = run(fake_llm, tmp_path, "ui=plain", input="hi\n/exit\n")
    assert proc.returncode == 0, proc.stderr
    assert "Saving this conversation to long-term memory" in proc.stderr
    assert len(fake_llm.chat_requests()) >= 2  # the answer, then the summary


def test_nothing_said_about_saving_when_nothing_was_said(fake_llm, tmp_path: Path) -> None:
    proc = run(fake_llm, tmp_path, "ui=plain", input="/exit\n")
    assert proc.returncode == 0, proc.stderr
    assert "long-term memory" not in proc.stdout + proc.stderr
    assert fake_llm.chat_requests() == []


def test_a_failed_summary_is_said_once(fake_llm, tmp_path: Path) -> None:
    def answer(body: dict) -> object:
        if is_card_summarizer(body) or is_summarizer(body):
            return ErrorTurn(400, "the summary model is broken", "invalid_request_error")
        return "An answer."

    fake_llm.set_fallback(answer)
    args = [*base_args(fake_llm, tmp_path), "ui=plain", "llm.max_retries=0"]
    term = Pty([*args, "search.embedding.backend=none"], tmp_path)
    term.read_until("/help for commands")
    term.write("hello\r")
    term.read_until("An answer.")
    term.write("/new\r")  # the first conversation's summary fails in the background
    term.read_until("New conversation")
    pending = tmp_path / ".reme" / "sessions" / "pending"
    deadline = time.monotonic() + 60  # the failure is noted in its record, then shown
    while not any('"attempts": 1' in p.read_text() for p in pending.glob("*.json")):
        assert time.monotonic() < deadline, term.output.decode(errors="replace")
        time.sleep(0.1)
    time.sleep(1)
    term.write("again\r")  # the failure is shown with this reply's events
    term.read_until("failed: ")
    term.write("/exit\r")
    assert term.wait(timeout=60) == 0
    out = term.output.decode(errors="replace")
    failed = re.findall(r"Summary (\w+) failed", out)
    assert len(failed) == 2, out  # the first conversation's and the second's (at exit)
    assert failed[0] != failed[1], out  # was: the first one's printed again at exit
