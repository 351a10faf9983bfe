"""What a `-p` one-shot deserves: a plain question costs one model call (its answer) and writes
no topic card (its transcript is kept and searchable); one that used a tool, or asked to remember
something, is summarized into a card as a conversation is."""

from __future__ import annotations

from pathlib import Path

from remecli.knowledge.summary.summarizer import NOTHING_MARKER
from tests.cli_process import run_one_shot, run_remecli


def test_a_plain_one_shot_costs_only_its_answer_and_writes_no_card(
    fake_llm, tmp_path: Path
) -> None:
    root = tmp_path / ".reme"
    fake_llm.add_text("Hi! How can I help?")
    fake_llm.set_fallback(NOTHING_MARKER)
    proc = run_one_shot(fake_llm.base_url, root, "hi", cwd=tmp_path, summarize=True)
    assert proc.returncode == 0, proc.stderr
    assert len(fake_llm.chat_requests()) == 1  # was: 2 (a card summary of "hi")
    assert not list((root / "memory").rglob("*.md"))  # no hi.md, no day page
    assert not list((root / "sessions" / "pending").glob("*.json"))
    found = run_remecli(
        "search", "help", f"working_dir={root}", "search.embedding.backend=none", cwd=tmp_path
    )
    assert "(transcript," in found.stdout  # the transcript is kept and searchable


def test_a_one_shot_asked_to_remember_is_summarized(fake_llm, tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    fake_llm.add_text("Noted: B-12.")
    fake_llm.set_fallback(NOTHING_MARKER)
    question = "please remember: the lab room is B-12"
    proc = run_one_shot(fake_llm.base_url, root, question, cwd=tmp_path, summarize=True)
    assert proc.returncode == 0, proc.stderr
    assert len(fake_llm.chat_requests()) >= 2  # the answer, then the card's summary


def test_a_one_shot_that_used_a_tool_is_summarized(fake_llm, tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    fake_llm.add_tool_calls([("ls", {"path": "."})])
    fake_llm.add_text("The folder holds .reme.")
    fake_llm.set_fallback(NOTHING_MARKER)
    proc = run_one_shot(fake_llm.base_url, root, "what is here?", cwd=tmp_path, summarize=True)
    assert proc.returncode == 0, proc.stderr
    assert len(fake_llm.chat_requests()) >= 3  # two for the answer, then the card's summary
