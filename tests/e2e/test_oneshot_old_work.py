"""`remecli -p` never waits for an earlier run's pending summary: it answers, summarizes its own
question, and leaves the old record for the next session, untouched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from remecli.knowledge.background import RECORD_VERSION, pending_dir_of
from remecli.knowledge.summarizer import NOTHING_MARKER
from remecli.llm.runtime.messages import UserMsg
from remecli.notes.layout import WorkingDir
from tests.fakes.messages import content_text


def _old_pending_record(root: Path) -> Path:
    pending = pending_dir_of(WorkingDir(root).ensure())
    pending.mkdir(parents=True, exist_ok=True)
    record = pending / "abc123abc123.json"
    message = UserMsg(
        name="user", content="Remember: the boiler code is 4471", created_at="2025-01-31T10:00:00"
    ).model_dump(mode="json")
    record.write_text(
        json.dumps(
            {
                "version": RECORD_VERSION,
                "id": "abc123abc123",
                "date": "2025-01-31",
                "created_at": "2025-01-31T10:00:00",
                "attempts": 0,
                "last_error": "",
                "messages": [message],
            }
        ),
        encoding="utf-8",
    )
    return record


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
