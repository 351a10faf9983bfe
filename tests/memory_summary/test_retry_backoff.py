"""A failed summary is not retried at every start: its record notes the attempts and when it is
due again (a doubling wait), a start skips it until then and for good after RETRY_LIMIT failures,
and `/compact` (due_only=False) still retries it."""

from __future__ import annotations

import datetime as dt
import json

from remecli.knowledge.background.backoff import RETRY_FIRST_WAIT, RETRY_LIMIT, retry_wait
from remecli.knowledge.background.tasks import SummaryTasks, pending_dir_of
from remecli.knowledge.summary.summarizer import NOTHING_MARKER, Summarizer
from tests.memory_summary.conftest import DAY, make_settings, user


def tasks_for(fake_llm, tmp_path, working_dir) -> SummaryTasks:
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    return SummaryTasks(summarizer, pending_dir_of(working_dir))


def _set(path, **changes) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**record, **changes}), encoding="utf-8")


async def test_a_failed_summary_waits_out_its_backoff_before_a_start_retries_it(
    fake_llm, tmp_path, working_dir
):
    fake_llm.set_fallback("Sure.")  # no tool call, no marker: the summary fails
    tasks = tasks_for(fake_llm, tmp_path, working_dir)
    task_id = tasks.add([user("the staging DB is db-7", "10:00")], date=DAY)
    [line] = await tasks.await_all()
    assert "failed" in line and f"attempt 1 of {RETRY_LIMIT}" in line
    path = tasks.record_file(task_id)
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["attempts"] == 1
    due = dt.datetime.fromisoformat(record["retry_after"])
    wait = (due - dt.datetime.now()).total_seconds()
    assert RETRY_FIRST_WAIT - 60 < wait <= RETRY_FIRST_WAIT
    requests = len(fake_llm.chat_requests())

    later = tasks_for(fake_llm, tmp_path, working_dir)  # the next start, a minute later
    assert await later.retry_pending() == []
    assert len(fake_llm.chat_requests()) == requests  # not retried: not due yet

    _set(path, retry_after=(dt.datetime.now() - dt.timedelta(seconds=1)).isoformat())
    fake_llm.set_fallback(NOTHING_MARKER)
    assert await later.retry_pending() == [task_id]  # due: retried, and it succeeds
    assert await later.await_all() == [f"Summary {task_id}: nothing worth storing."]
    assert not path.exists()


async def test_after_the_retry_limit_only_compact_retries_it(fake_llm, tmp_path, working_dir):
    fake_llm.set_fallback("Sure.")
    tasks = tasks_for(fake_llm, tmp_path, working_dir)
    task_id = tasks.add([user("remember the boiler code 4471", "10:00")], date=DAY)
    await tasks.await_all()
    path = tasks.record_file(task_id)
    _set(path, attempts=RETRY_LIMIT - 1, retry_after="2000-01-01T00:00:00")
    assert await tasks.retry_pending() == [task_id]  # due, one attempt left
    [line] = await tasks.await_all()
    assert f"after {RETRY_LIMIT} failed attempts a start no longer retries them" in line
    assert json.loads(path.read_text(encoding="utf-8"))["attempts"] == RETRY_LIMIT
    _set(path, retry_after="2000-01-01T00:00:00")
    requests = len(fake_llm.chat_requests())
    assert await tasks.retry_pending() == []  # past due, but given up at start
    assert len(fake_llm.chat_requests()) == requests
    fake_llm.set_fallback(NOTHING_MARKER)
    assert await tasks.retry_pending(due_only=False) == [task_id]  # /compact: asked for
    assert await tasks.await_all() == [f"Summary {task_id}: nothing worth storing."]
    assert not path.exists()


def test_the_wait_doubles_up_to_a_day() -> None:
    waits = [retry_wait(n) for n in range(1, 12)]
    assert waits[:3] == [RETRY_FIRST_WAIT, 2 * RETRY_FIRST_WAIT, 4 * RETRY_FIRST_WAIT]
    assert max(waits) == 86_400.0 and waits == sorted(waits)
