"""`remecli -p` never waits for an earlier run's pending summary: it answers, summarizes its own
question (one worth a card: tests/e2e/test_oneshot_cards.py), and leaves the old record for the
next session, untouched."""

from __future__ import annotations

import threading
from pathlib import Path

from remecli.knowledge.summary.summarizer import NOTHING_MARKER
from tests.cli_process import run_one_shot
from tests.fakes.messages import content_text
from tests.fakes.pending_record import write_pending_record


def _old_pending_record(root: Path) -> Path:
    return write_pending_record(root, "Remember: the boiler code is 4471")


def test_one_shot_leaves_old_pending_summaries_alone(fake_llm, tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    record = _old_pending_record(root)
    before = record.read_text(encoding="utf-8")
    old_summary_seen = threading.Event()

    def answer(body: dict) -> str:
        texts = " ".join(content_text(m) for m in body.get("messages", []))
        if "4471" in texts:
            old_summary_seen.set()
        return NOTHING_MARKER

    fake_llm.add_text("Forty-two.")
    fake_llm.set_fallback(answer)
    proc = run_one_shot(
        fake_llm.base_url,
        root,
        "please remember: the lab room is B-12",  # a one-shot worth a card
        "llm.max_retries=1",
        "memory.dream.auto=false",
        cwd=tmp_path,
        summarize=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Forty-two."
    assert not old_summary_seen.is_set(), "the old pending summary was retried during -p"
    assert record.read_text(encoding="utf-8") == before  # no attempt counted either
    summaries = [r for r in fake_llm.chat_requests()[1:]]
    assert summaries, "the one-shot's own question is still summarized"
