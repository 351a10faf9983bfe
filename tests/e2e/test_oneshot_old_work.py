"""`remecli -p` never waits for an earlier run's pending summary: it answers, summarizes its own
question, and leaves the old record for the next session, untouched."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from remecli.knowledge.summarizer import NOTHING_MARKER
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
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "remecli",
            "config=cli",
            f"llm.base_url={fake_llm.base_url}",
            "llm.model_name=fake-model",
            "llm.max_retries=1",
            "search.embedding.backend=none",
            "memory.dream.auto=false",
            f"working_dir={root}",
            "-p",
            "what is six times seven",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "REME_LLM_API_KEY": "sk-test"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Forty-two."
    assert not old_summary_seen.is_set(), "the old pending summary was retried during -p"
    assert record.read_text(encoding="utf-8") == before  # no attempt counted either
    summaries = [r for r in fake_llm.chat_requests()[1:]]
    assert summaries, "the one-shot's own question is still summarized"
