"""A failing Auto Dream backs off like a pending summary (`knowledge.background.backoff`, persisted in the
catalog): not again after the next saved summary, not at the next start, until its wait is
over; `/dream` still runs at once, and a success clears the backoff."""

from __future__ import annotations

import asyncio
import datetime as dt
import json

from remecli.conversation.file_memory import FileMemory
from remecli.knowledge.background.backoff import RETRY_FIRST_WAIT
from remecli.knowledge.dream.state import Catalog
from tests.dream.conftest import add_card, make_settings


async def _until(predicate, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_a_failing_dream_waits_out_its_backoff_across_restarts(
    fake_llm, tmp_path, working_dir
):
    settings = make_settings(fake_llm, tmp_path)
    add_card(working_dir, dt.date.today(), "atlas", "Atlas", "Chose PostgreSQL 16 for atlas.")
    fake_llm.set_fallback("Sure, here are the units!")  # never the extraction JSON
    dreams: list = []
    memory = FileMemory(
        working_dir.root, settings=settings, search=False, on_dream_done=dreams.append
    )
    await memory.start()
    await _until(lambda: bool(dreams))
    [failed] = dreams
    assert failed.status == "failed"
    assert "tried again at a start 10 min from now" in failed.message and "/dream" in failed.message
    requests = len(fake_llm.chat_requests())
    assert await memory.dreaming.maybe_start() is False  # e.g. after the next saved summary
    await memory.close()

    again = FileMemory(working_dir.root, settings=settings, search=False)
    await again.start()  # the next start, at once
    assert not again.dreaming.running
    await again.close()
    assert len(fake_llm.chat_requests()) == requests  # was: an extraction at every start
    backoff = Catalog.load(working_dir).backoff
    assert backoff["attempts"] == 1
    wait = (dt.datetime.fromisoformat(backoff["retry_after"]) - dt.datetime.now()).total_seconds()
    assert RETRY_FIRST_WAIT - 60 < wait <= RETRY_FIRST_WAIT

    catalog = working_dir.root / ".dream" / "catalog.json"
    data = json.loads(catalog.read_text(encoding="utf-8"))
    data["backoff"]["retry_after"] = "2000-01-01T00:00:00"  # the wait is over
    catalog.write_text(json.dumps(data), encoding="utf-8")
    fake_llm.set_fallback(json.dumps({"units": [], "skipped": [], "interests": []}))
    later = FileMemory(working_dir.root, settings=settings, search=False)
    assert await later.dreaming.maybe_start() is True
    await _until(lambda: not later.dreaming.running and later.dreaming._task.done())
    await later.close()
    assert Catalog.load(working_dir).backoff == {}  # a success: due by its interval again
