"""Recorded summaries are retried oldest first (`/compact`, a start), whatever their file names:
the saves of one conversation land in its card's Timeline in the order they were said."""

from __future__ import annotations

import json

from remecli.knowledge.background.tasks import SummaryTasks, pending_dir_of
from remecli.knowledge.summary.summarizer import NOTHING_MARKER, Summarizer
from tests.fakes.pending_record import write_pending_record
from tests.memory_summary.conftest import make_settings


def _created(path, when: str) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**record, "created_at": when}), encoding="utf-8")


async def test_compact_retries_the_oldest_save_first(fake_llm, tmp_path, working_dir) -> None:
    fake_llm.set_fallback(NOTHING_MARKER)
    newer = write_pending_record(working_dir.root, "SECOND: the cache moved to redis", "a" * 12)
    older = write_pending_record(working_dir.root, "FIRST: the cache was memcached", "b" * 12)
    _created(newer, "2025-01-31T10:05:00.000002")
    _created(older, "2025-01-31T10:05:00.000001")
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    tasks = SummaryTasks(summarizer, pending_dir_of(working_dir))
    assert await tasks.retry_pending(due_only=False) == ["b" * 12, "a" * 12]
    await tasks.await_all()
    asked = [json.dumps(r.body["messages"]) for r in fake_llm.chat_requests()]
    firsts = [i for i, text in enumerate(asked) if "FIRST:" in text]
    seconds = [i for i, text in enumerate(asked) if "SECOND:" in text]
    assert firsts and seconds and max(firsts) < min(seconds)  # was: by file name, newest first


async def test_a_start_with_summaries_off_leaves_recorded_saves_alone(fake_llm, tmp_path) -> None:
    """memory.summarize=false: no model call for an earlier run's save; its record stays for a
    start with summaries on (it was retried, and failed again, at every start)."""
    from remecli.conversation.file_memory import FileMemory

    settings = make_settings(fake_llm, tmp_path).with_changes(
        {"memory.summarize": False, "search.embedding.backend": "none"}
    )
    record = write_pending_record(tmp_path / ".reme", "the cache moved to redis")
    memory = FileMemory(tmp_path / ".reme", settings=settings)
    await memory.start(wait_for_index=True)
    try:
        assert memory.tasks.pending_count == 0
    finally:
        await memory.close(wait=True)
    assert fake_llm.chat_requests() == [] and record.is_file()
