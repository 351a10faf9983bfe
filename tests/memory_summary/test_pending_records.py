"""`SummaryTasks.add` records the messages on disk before it returns: a crash right after it
loses nothing, and `retry_pending()` never runs a record twice."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path

from remecli.knowledge.background.tasks import RECORD_VERSION, SummaryTasks, pending_dir_of
from remecli.knowledge.summary.summarizer import NOTHING_MARKER, Summarizer
from tests.memory_summary.conftest import DAILY, DAY, first_user_text, make_settings, user

PROJECT_ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import asyncio, datetime as dt, os, sys
from agentscope.message import UserMsg
from remecli.config.settings import LLMSettings, Settings
from remecli.knowledge.background.tasks import SummaryTasks, pending_dir_of
from remecli.notes.layout import WorkingDir
from remecli.knowledge.summary.summarizer import Summarizer

root, base_url = sys.argv[1], sys.argv[2]
settings = Settings(working_dir=root, llm=LLMSettings(base_url=base_url, api_key="sk-test",
                    model_name="fake-model", max_retries=0))
working_dir = WorkingDir(root)

async def main():
    tasks = SummaryTasks(Summarizer(settings, working_dir), pending_dir_of(working_dir))
    msg = UserMsg(name="user", content="Remember: the staging DB is db-7",
                  created_at="2025-01-31T10:00:00")
    task_id = tasks.add([msg], date=dt.date(2025, 1, 31))
    print(task_id, flush=True)
    os._exit(0)  # a crash: the task never got to run

asyncio.run(main())
"""


def tasks_for(fake_llm, tmp_path, working_dir) -> SummaryTasks:
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    return SummaryTasks(summarizer, pending_dir_of(working_dir))


async def test_add_writes_the_record_before_returning(fake_llm, tmp_path, working_dir):
    fake_llm.set_fallback(NOTHING_MARKER)
    tasks = tasks_for(fake_llm, tmp_path, working_dir)
    task_id = tasks.add([user("keep me", "10:00")], date=DAY)
    path = tasks.record_file(task_id)
    assert path.exists()  # no await since add(): written synchronously
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["version"] == RECORD_VERSION and record["id"] == task_id
    assert record["date"] == DAY.isoformat() and record["attempts"] == 0
    assert "keep me" in json.dumps(record["messages"])
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left
    assert await tasks.await_all() == [f"Summary {task_id}: nothing worth storing."]
    assert not path.exists()


async def test_retry_does_not_rerun_a_record_owned_by_a_live_task(fake_llm, tmp_path, working_dir):
    release = threading.Event()
    fake_llm.set_fallback(lambda body: release.wait(30) and NOTHING_MARKER)
    tasks = tasks_for(fake_llm, tmp_path, working_dir)
    task_id = tasks.add([user("x", "10:00")], date=DAY)
    assert await tasks.retry_pending() == []  # recorded, but its own task owns it
    release.set()
    assert await tasks.await_all() == [f"Summary {task_id}: nothing worth storing."]
    assert len(fake_llm.chat_requests()) == 1


async def test_concurrent_retries_start_a_record_once(fake_llm, tmp_path, working_dir):
    fake_llm.set_fallback(NOTHING_MARKER)
    pending = pending_dir_of(working_dir)
    crashed = tasks_for(fake_llm, tmp_path, working_dir)
    record = {
        "version": RECORD_VERSION,
        "id": "abc123abc123",
        "date": DAY.isoformat(),
        "created_at": "2025-01-31T10:00:00",
        "attempts": 0,
        "last_error": "",
        "messages": [user("left over", "10:00").model_dump(mode="json")],
    }
    pending.mkdir(parents=True, exist_ok=True)
    crashed.record_file("abc123abc123").write_text(json.dumps(record), encoding="utf-8")
    later = tasks_for(fake_llm, tmp_path, working_dir)
    first, second = await asyncio.gather(later.retry_pending(), later.retry_pending())
    assert first + second == ["abc123abc123"]
    assert await later.await_all() == ["Summary abc123abc123: nothing worth storing."]
    assert len(fake_llm.chat_requests()) == 1


async def test_a_crash_right_after_add_leaves_a_record_the_next_start_summarizes(
    fake_llm, tmp_path, working_dir
):
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        str(working_dir.root),
        fake_llm.base_url,
        cwd=str(PROJECT_ROOT),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await child.communicate()
    assert child.returncode == 0, err.decode()
    task_id = out.decode().strip()
    assert fake_llm.chat_requests() == []  # the child never summarized

    fake_llm.add_tool_calls([("read", {"path": DAILY})])
    fake_llm.add_tool_calls(
        [("write", {"path": DAILY, "content": "# 2025-01-31\n\n- 10:00 Staging DB is db-7.\n"})]
    )
    fake_llm.add_text("Saved.")
    later = tasks_for(fake_llm, tmp_path, working_dir)
    assert await later.retry_pending() == [task_id]
    assert await later.await_all() == [f"Summary {task_id}: saved to {DAILY}."]
    assert "the staging DB is db-7" in first_user_text(fake_llm.chat_requests()[0].body)
    assert "db-7" in working_dir.daily_file(DAY).read_text(encoding="utf-8")
    assert later.pending_records() == []
