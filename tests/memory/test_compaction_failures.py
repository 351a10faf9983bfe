"""When the compaction request fails or is cancelled: a real agentscope Agent, the fake server.

- Esc (cancelling the task consuming the reply) during a compaction ends the reply at once and
  sends nothing more; the context stays valid for the next turn.
- A transient 5xx is retried (with `llm.max_retries`) into a real checkpoint.
- A persistent failure keeps the messages while the context still fits the window (and tries
  once per reasoning step, never in a loop); over the window the fallback checkpoint is applied.
"""

from __future__ import annotations

import asyncio

from remecli.agent.context_middleware import CompactionDone
from tests.fakes.turns import ErrorTurn, TextTurn
from tests.memory.conftest import (
    Script,
    checkpoint,
    request_text,
    text_tool,
    tool_calls,
    words,
)


def _done(notices: list) -> list[CompactionDone]:
    return [n for n in notices if isinstance(n, CompactionDone)]


def _reply_text(events: list) -> str:
    return "".join(
        getattr(e, "delta", "") for e in events if type(e).__name__ == "TextBlockDeltaEvent"
    )


async def test_cancelling_during_a_compaction_stops_the_reply(rig_factory, fake_llm) -> None:
    slow = {"on": False}

    def summaries(body: dict, n: int):
        return TextTurn(checkpoint("late"), delay=30.0) if slow["on"] else checkpoint(f"gen{n}")

    script = Script(fake_llm, summaries=summaries)
    rig = rig_factory(keep_recent_tokens=150)  # threshold: 1200 tokens
    for turn in range(3):
        script.add(f"answer {turn}")
        await rig.ask(words(60, seed=turn))
    assert script.compactions == []
    slow["on"] = True
    script.add("never sent")
    sent_before = len(fake_llm.chat_requests())
    task = asyncio.create_task(rig.ask(words(300, seed=99)))  # crosses the threshold
    await fake_llm.wait_for_requests_async(sent_before + 1, path="/v1/chat/completions")
    assert len(script.compactions) == 1
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=10)
    assert task in done, "the reply kept running after the cancellation"
    if not task.cancelled():  # agentscope ends an interrupted reply with a ReplyEndEvent
        ends = [e for e in task.result() if type(e).__name__ == "ReplyEndEvent"]
        assert ends and ends[-1].finished_reason == "interrupted"
    assert len(fake_llm.chat_requests()) == sent_before + 1  # no retry, no reasoning call
    assert script.steps == ["never sent"]
    # nothing was compacted
    assert rig.mw.session.summary == "" and rig.compacted == [] and _done(rig.notices) == []

    # the conversation goes on with a well-formed context
    slow["on"] = False
    script.steps.clear()
    script.add("fine")
    events = await rig.ask("still there?")
    assert _reply_text(events) == "fine"
    assert request_text(script.agent_calls[-1]).rstrip().endswith("still there?")
    assert fake_llm.violations == []


async def test_transient_error_is_retried_into_a_real_checkpoint(rig_factory, fake_llm) -> None:
    script = Script(
        fake_llm,
        summaries=lambda body, n: ErrorTurn(500, "hiccup") if n == 1 else checkpoint(f"gen{n}"),
    )
    rig = rig_factory(keep_recent_tokens=150, max_retries=1)
    turn = 0
    while not _done(rig.notices) and turn < 20:
        script.add(f"answer {turn}")
        await rig.ask(words(60, seed=turn))
        turn += 1
    [done] = _done(rig.notices)
    assert done.error is None and done.messages_compacted > 0
    assert done.tokens_after < done.tokens_before
    assert len(script.compactions) == 2
    assert (
        "gen2 0" in rig.mw.session.summary
        and "Automatic summary failed" not in rig.agent.state.summary
    )
    assert len(rig.compacted) == 1
    assert fake_llm.violations == []


async def test_persistent_failure_within_the_window_keeps_the_messages(
    rig_factory, fake_llm
) -> None:
    failing = {"on": True}

    def summaries(body: dict, n: int):
        return ErrorTurn(500, "compactor down") if failing["on"] else checkpoint(f"gen{n}")

    script = Script(fake_llm, summaries=summaries)
    tool = text_tool("probe", lambda kw: f"probed {kw['path']}")
    rig = rig_factory(tools=[tool], keep_recent_tokens=150, max_retries=1)  # window 6000
    asked: list[str] = []
    while not _done(rig.notices) and len(asked) < 20:
        script.add(f"answer {len(asked)}")
        asked.append(words(60, seed=len(asked)))
        await rig.ask(asked[-1])
    [failed] = _done(rig.notices)
    assert failed.error and "compactor down" in failed.error
    assert failed.messages_compacted == 0 and failed.tokens_after == failed.tokens_before
    assert failed.tokens_before < rig.mw.session.max_input_length
    assert len(script.compactions) == 2  # one attempt and its retry, once in that step
    # nothing removed: no summary, nothing handed to memory, every question still sent
    assert rig.mw.session.summary == "" and rig.compacted == []
    sent = request_text(script.agent_calls[-1])
    assert all(question in sent for question in asked)

    # a turn of two reasoning steps (a tool call, then the answer): one attempt per step
    script.add(tool_calls(("probe", {"path": "a"})), "probed")
    events = await rig.ask("probe a")
    assert _reply_text(events) == "probed"
    assert len(script.compactions) == 2 + 2 * 2
    assert [d.messages_compacted for d in _done(rig.notices)] == [0, 0, 0]

    # once the model is back, the next step compacts for real
    failing["on"] = False
    script.add("done")
    await rig.ask("and now?")
    last = _done(rig.notices)[-1]
    assert last.error is None and last.messages_compacted > 0
    assert rig.mw.session.summary and len(rig.compacted) == 1
    assert fake_llm.violations == []


async def test_persistent_failure_over_the_window_applies_the_fallback(
    rig_factory, fake_llm
) -> None:
    outcomes = {"failing": False}

    def summaries(body: dict, n: int):
        return ErrorTurn(500, "compactor down") if outcomes["failing"] else checkpoint("kept")

    script = Script(fake_llm, summaries=summaries)
    rig = rig_factory(
        max_input_length=2000, memory_compact_ratio=0.5, keep_recent_tokens=150, max_retries=0
    )
    turn = 0
    while not _done(rig.notices) and turn < 20:  # a first, successful checkpoint
        script.add(f"answer {turn}")
        await rig.ask(words(60, seed=turn))
        turn += 1
    assert _done(rig.notices)[0].error is None
    outcomes["failing"] = True
    while _done(rig.notices)[-1].messages_compacted == 0 or len(_done(rig.notices)) == 1:
        assert turn < 40
        script.add(f"answer {turn}")
        events = await rig.ask(words(60, seed=turn))
        assert type(events[-1]).__name__ == "ReplyEndEvent"
        turn += 1
    *kept, applied = _done(rig.notices)[1:]
    assert kept and all(d.messages_compacted == 0 and d.error for d in kept)
    assert all(d.tokens_before < 2000 for d in kept)
    assert applied.error and "compactor down" in applied.error
    assert applied.tokens_before >= 2000 > applied.tokens_after
    summary = rig.mw.session.summary
    assert "kept 0" in summary and "kept 3" in summary  # the previous checkpoint survives
    assert "Automatic summary failed" in summary
    assert len(rig.compacted) == 2
    assert fake_llm.violations == []
