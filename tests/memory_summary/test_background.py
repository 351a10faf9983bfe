"""Background summaries: never blocking, failures recorded on disk and retried, cancellation."""

from __future__ import annotations

import asyncio
import json
import threading

from remecli.knowledge.background.tasks import SummaryTasks, pending_dir_of
from remecli.knowledge.summary.summarizer import NOTHING_MARKER, Summarizer
from tests.memory_summary.conftest import DAILY, DAY, first_user_text, make_settings, user


def tasks_for(fake_llm, tmp_path, working_dir, **callbacks) -> SummaryTasks:
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    return SummaryTasks(summarizer, pending_dir_of(working_dir), **callbacks)


def script_write(fake_llm, line: str) -> None:
    """read → write today's file with `line` → final text."""
    fake_llm.add_tool_calls([("read", {"path": DAILY})])
    fake_llm.add_tool_calls([("write", {"path": DAILY, "content": f"# 2025-01-31\n\n{line}\n"})])
    fake_llm.add_text("Saved.")


async def test_add_returns_at_once_and_the_loop_stays_free(fake_llm, tmp_path, working_dir):
    release = threading.Event()

    def slow_model(body: dict) -> str:
        release.wait(30)
        return NOTHING_MARKER

    fake_llm.add_handler(slow_model)
    counts: list[int] = []
    outcomes = []
    tasks = tasks_for(
        fake_llm, tmp_path, working_dir, on_change=counts.append, on_done=outcomes.append
    )
    task_id = tasks.add([user("hello", "10:00")], date=DAY)
    assert tasks.pending_count == 1
    # the model is now stuck on the request, yet this coroutine keeps running on the same loop
    await fake_llm.wait_for_requests_async(1, path="/v1/chat/completions")
    assert tasks.pending_count == 1
    assert tasks.record_file(task_id).exists()  # recorded before the summary runs
    release.set()
    lines = await tasks.await_all()
    assert lines == [f"Summary {task_id}: nothing worth storing."]
    assert counts == [1, 0]
    assert [o.status for o in outcomes] == ["nothing"]
    assert tasks.pending_records() == []


async def test_failure_keeps_the_messages_and_retry_writes_them(fake_llm, tmp_path, working_dir):
    fake_llm.add_error(500, "upstream exploded")
    outcomes = []
    tasks = tasks_for(fake_llm, tmp_path, working_dir, on_done=outcomes.append)
    task_id = tasks.add([user("Remember: deploys go out on Tuesdays", "10:00")], date=DAY)
    lines = await tasks.await_all()
    assert len(lines) == 1 and "failed" in lines[0] and "/compact" in lines[0]
    assert outcomes[0].status == "failed" and outcomes[0].pending_file == tasks.record_file(task_id)
    record = json.loads(tasks.record_file(task_id).read_text())
    assert record["attempts"] == 1 and record["date"] == DAY.isoformat()
    assert "Tuesdays" in json.dumps(record["messages"])
    assert not working_dir.daily_file(DAY).exists()

    # /compact (or a start once the backoff has passed, see test_retry_backoff.py): a new
    # manager finds the record and summarizes it
    script_write(fake_llm, "- 10:00 Deploys go out on Tuesdays.")
    later = tasks_for(fake_llm, tmp_path, working_dir)
    assert await later.retry_pending(due_only=False) == [task_id]
    assert await later.await_all() == [f"Summary {task_id}: saved to {DAILY}."]
    assert "[10:00] user: Remember: deploys go out on Tuesdays" in first_user_text(
        fake_llm.chat_requests()[1].body
    )
    assert "Tuesdays" in working_dir.daily_file(DAY).read_text()
    assert later.pending_records() == []


async def test_cancelled_task_stays_recorded(fake_llm, tmp_path, working_dir):
    release = threading.Event()
    fake_llm.add_handler(lambda body: release.wait(30) and NOTHING_MARKER)
    tasks = tasks_for(fake_llm, tmp_path, working_dir)
    running = tasks.add([user("in flight", "10:00")], date=DAY)
    await fake_llm.wait_for_requests_async(1, path="/v1/chat/completions")
    never_started = tasks.add([user("queued", "10:01")], date=DAY)
    lines = await tasks.cancel_all()
    release.set()
    assert len(lines) == 2 and all("interrupted" in line for line in lines)
    assert tasks.pending_count == 0
    assert {p.stem for p in tasks.pending_records()} == {running, never_started}


async def test_tasks_run_one_at_a_time_in_order(fake_llm, tmp_path, working_dir):
    fake_llm.set_fallback(NOTHING_MARKER)
    tasks = tasks_for(fake_llm, tmp_path, working_dir)
    first = tasks.add([user("first", "10:00")], date=DAY)
    second = tasks.add([user("second", "10:01")], date=DAY)
    lines = await tasks.await_all()
    assert sorted(lines) == sorted(
        [f"Summary {first}: nothing worth storing.", f"Summary {second}: nothing worth storing."]
    )
    texts = [first_user_text(r.body) for r in fake_llm.chat_requests()]
    assert "user: first" in texts[0] and "user: second" in texts[1]


async def test_retry_skips_records_running_here(fake_llm, tmp_path, working_dir):
    release = threading.Event()
    fake_llm.add_handler(lambda body: release.wait(30) and NOTHING_MARKER)
    tasks = tasks_for(fake_llm, tmp_path, working_dir)
    tasks.add([user("x", "10:00")], date=DAY)
    await fake_llm.wait_for_requests_async(1, path="/v1/chat/completions")
    assert await tasks.retry_pending() == []
    release.set()
    await tasks.await_all()


async def test_await_all_timeout_reports_what_still_runs(fake_llm, tmp_path, working_dir):
    release = threading.Event()
    fake_llm.add_handler(lambda body: release.wait(30) and NOTHING_MARKER)
    tasks = tasks_for(fake_llm, tmp_path, working_dir)
    task_id = tasks.add([user("x", "10:00")], date=DAY)
    await fake_llm.wait_for_requests_async(1, path="/v1/chat/completions")
    lines = await tasks.await_all(timeout=0.05)
    assert len(lines) == 1 and "still running" in lines[0] and task_id in lines[0]
    release.set()
    assert await tasks.await_all() == [f"Summary {task_id}: nothing worth storing."]
    await asyncio.sleep(0)
