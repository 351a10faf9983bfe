"""What the plain REPL says on its way out is true: "Saving this conversation to long-term
memory" only when a summary is handed over; with `memory.summarize=false` only the transcript
is kept (as it was all along) and nothing is said about saving."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_plain_and_oneshot import run


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
