"""The composition root: `build_runtime(settings, mode)` builds what each mode needs, the parts
publish typed events on one bus, and a `JobRunner` runs on a `Runtime` itself."""

from __future__ import annotations

import logging

import pytest

from remecli.conversation.notices import ContextUsage
from remecli.knowledge.summary.summarizer import NOTHING_MARKER
from remecli.ops import JobRunner
from remecli.runtime import (
    EventBus,
    FileMemory,
    Mode,
    RuntimeEvent,
    SummaryDone,
    SummaryTasksChanged,
    build_runtime,
)
from remecli.runtime.events import NOTICES
from tests.fakes.pending_record import write_pending_record
from tests.memory_summary.conftest import make_settings


def test_each_mode_builds_what_it_needs(fake_llm, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = make_settings(fake_llm, tmp_path).with_changes({"working_dir": ".reme"})
    job = build_runtime(settings, Mode.JOB)
    assert job.settings.working_dir == str(tmp_path.resolve() / ".reme")  # resolved once
    assert job.settings.memory.dream.auto is False and settings.memory.dream.auto is True
    assert job.search_enabled and not job.tasks.live
    assert build_runtime(settings, Mode.JOB, search=False).search_enabled is False
    chat = build_runtime(settings, Mode.CHAT)
    assert chat.tasks.live and chat.search_enabled and chat.settings.memory.dream.auto
    for mode in (Mode.CONVERSATION, Mode.VECTOR):
        assert build_runtime(settings, mode).search_enabled is False
    assert not build_runtime(settings, Mode.SERVE).tasks.live
    assert not (tmp_path / ".reme").exists()  # building writes nothing; start does


def test_the_bus_hands_each_event_to_its_subscribers_only(caplog) -> None:
    bus = EventBus()
    tasks: list[RuntimeEvent] = []
    everything: list[RuntimeEvent] = []
    bus.subscribe(SummaryTasksChanged, tasks.append)
    stop = bus.subscribe_any(everything.append)

    def broken(_event: object) -> None:
        raise RuntimeError("a front-end bug")

    bus.subscribe_any(broken, NOTICES)
    usage = ContextUsage(tokens=10, max_input_length=100, threshold=70)
    with caplog.at_level(logging.ERROR):
        assert bus.publish(usage) is None  # all sync
        bus.publish(SummaryTasksChanged(2))
    assert tasks == [SummaryTasksChanged(2)] and everything == [usage, SummaryTasksChanged(2)]
    assert "ContextUsage subscriber failed" in caplog.text  # logged; the others still got it
    stop()
    bus.publish(SummaryTasksChanged(0))
    assert everything == [usage, SummaryTasksChanged(2)] and len(tasks) == 2


async def test_an_async_subscriber_is_awaited_by_the_publisher() -> None:
    bus = EventBus()
    seen: list[int] = []

    async def slow(event: SummaryTasksChanged) -> None:
        seen.append(event.running)

    bus.subscribe(SummaryTasksChanged, slow)
    pending = bus.publish(SummaryTasksChanged(3))
    assert pending is not None and seen == []
    await pending
    assert seen == [3]


async def test_a_summary_and_the_task_count_arrive_as_typed_events(fake_llm, tmp_path) -> None:
    fake_llm.set_fallback(NOTHING_MARKER)
    settings = make_settings(fake_llm, tmp_path)
    write_pending_record(tmp_path / ".reme", "the cache moved to redis")
    runtime = build_runtime(settings, Mode.CHAT, search=False)
    events: list[RuntimeEvent] = []
    runtime.events.subscribe_any(events.append)
    await runtime.start(wait_for_index=False, background=True)  # retries the recorded save
    try:
        await runtime.tasks.await_all()
    finally:
        await runtime.close()
    counts = [e.running for e in events if isinstance(e, SummaryTasksChanged)]
    assert counts[0] == 1 and counts[-1] == 0
    [done] = [e for e in events if isinstance(e, SummaryDone)]
    assert done.outcome.status == "nothing", done.outcome


async def test_the_seed_callbacks_are_subscriptions(fake_llm, tmp_path) -> None:
    seen: list[object] = []
    memory = FileMemory(
        tmp_path / ".reme",
        settings=make_settings(fake_llm, tmp_path),
        search=False,
        on_notice=seen.append,
        on_summary_change=seen.append,
    )
    usage = ContextUsage(tokens=1, max_input_length=100, threshold=70)
    memory.conversation.notify(usage)
    memory.runtime.events.publish(SummaryTasksChanged(4))
    assert seen == [usage, 4]


@pytest.mark.parametrize("wrapped", [False, True])
async def test_a_job_runner_runs_on_a_runtime(fake_llm, tmp_path, wrapped: bool) -> None:
    settings = make_settings(fake_llm, tmp_path).with_changes({"search.embedding.backend": "none"})
    (tmp_path / ".reme" / "memory").mkdir(parents=True)
    (tmp_path / ".reme" / "memory" / "2025-01-31.md").write_text("We deploy with make ship.\n")
    runtime = build_runtime(settings, Mode.JOB)
    runner = JobRunner(FileMemory.over(runtime) if wrapped else runtime)
    await runner.start(wait_for_index=True, background=False)
    try:
        found = await runner.run("memory_search", {"query": "deploy make ship"})
    finally:
        await runner.close()
    assert [hit["path"] for hit in found["results"]] == ["memory/2025-01-31.md"]
