"""memory_record fed by the importers: secrets never stored, summaries dated by the conversation,
re-recording adds nothing."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from remecli.conversation.transcript import Transcript
from remecli.knowledge.imports import read_conversation
from remecli.ops import JobRunner
from tests.imports.dated_model import DatedSummarizer
from tests.jobs.conftest import job_settings, seed

FIXTURES = Path(__file__).parent / "fixtures"
KEY = "sk-proj-4fQ9xT2mLp8Rz1KcW7vN3bYd6HsJ0eGuA5iO"


async def test_record_redacts_dates_and_is_idempotent(tmp_path: Path, fake_llm) -> None:
    model = DatedSummarizer()
    fake_llm.set_fallback(model)
    seed(tmp_path / ".reme")
    conversation = read_conversation(FIXTURES / "claude_code_midnight.jsonl")
    arguments = {"session_id": conversation.session_id, "messages": conversation.records()}
    runner = JobRunner.from_settings(job_settings(tmp_path, fake_llm.base_url))
    await runner.start(wait_for_index=True)
    try:
        first = await runner.run("memory_record", arguments)
        await runner.memory.await_summary_tasks()
        again = await runner.run("memory_record", arguments)
    finally:
        await runner.close()
    root = tmp_path / ".reme"
    first_day = conversation.days()[0]
    assert first["recorded"] == 4 and first["days"] == conversation.days()
    assert again["recorded"] == 0 and again["skipped"] == 4 and again["summary_task"] is None
    # the summary is filed under the conversation's day, not the day it was recorded
    assert model.days == [first_day] and first_day != f"{dt.date.today():%Y-%m-%d}"
    daily = (root / "memory" / f"{first_day}.md").read_text(encoding="utf-8")
    assert "- said: So restart billing after every rotation" in daily
    # the key reached neither the transcript, nor the model, nor any file
    stored = Transcript(root / "sessions" / f"{conversation.session_id}.jsonl").read().messages
    assert "[REDACTED:openai_key]" in json.dumps([m.model_dump(mode="json") for m in stored])
    assert stored[0].created_at.startswith("2025-03-1")  # each message keeps its own time
    assert model.seen and all(KEY not in text for text in model.seen)
    leaks = [p for p in root.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaks == []
