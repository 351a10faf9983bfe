"""Auto-compaction with a real agentscope Agent and the strict fake OpenAI server."""

from __future__ import annotations

import openai
import pytest

from remecli.agent.context_middleware import CompactionDone, CompactionStarted, ContextUsage
from remecli.conversation.prompts import sections
from remecli.llm.agentscope_middleware import AgentView
from remecli.llm.blocks import MSG_OVERHEAD
from tests.fakes.messages import content_text
from tests.fakes.turns import ErrorTurn
from tests.memory.conftest import Script, checkpoint, request_text, text_tool, tool_calls, words


def _done(notices: list) -> list[CompactionDone]:
    return [n for n in notices if isinstance(n, CompactionDone)]


async def test_compaction_fires_exactly_when_threshold_is_crossed(rig_factory, fake_llm) -> None:
    script = Script(fake_llm)
    rig = rig_factory(max_input_length=2000, memory_compact_ratio=0.5, keep_recent_tokens=150)
    session, counter = rig.mw.session, rig.mw.counter
    threshold = session.threshold_tokens()
    crossed_at = None
    for turn in range(12):
        user_text = words(40, seed=turn)
        script.add(f"ok {turn}")
        before = session.context_tokens()
        compactions_before = len(script.compactions)
        await rig.ask(user_text)
        # what the check saw: everything so far plus the new user message (and its overhead)
        predicted = before + counter.count(user_text) + MSG_OVERHEAD
        fired = len(script.compactions) > compactions_before
        if turn == 0:
            continue  # the system prompt is measured during the first step
        assert fired == (predicted > threshold), (turn, predicted, threshold)
        if fired and crossed_at is None:
            crossed_at = turn
    assert crossed_at is not None and crossed_at > 1
    usage = [n for n in rig.notices if isinstance(n, ContextUsage)]
    started = [i for i, n in enumerate(rig.notices) if isinstance(n, CompactionStarted)]
    # every CompactionStarted follows a measurement above the threshold, and only those do
    for i, notice in enumerate(rig.notices):
        if isinstance(notice, ContextUsage):
            follows = i + 1 < len(rig.notices) and isinstance(rig.notices[i + 1], CompactionStarted)
            assert follows == (notice.tokens > notice.threshold)
    assert usage and started
    assert fake_llm.violations == []


async def test_previous_summary_survives_second_and_third_compaction(rig_factory, fake_llm) -> None:
    script = Script(fake_llm)  # the n-th compaction request is answered with checkpoint("gen<n>")
    rig = rig_factory(keep_recent_tokens=150)
    turn = 0
    while len(_done(rig.notices)) < 3 and turn < 40:
        script.add(f"answer {turn}")
        await rig.ask(words(60, seed=turn))
        turn += 1
    assert len(_done(rig.notices)) == 3
    requests = script.compactions
    assert len(requests) >= 3
    # every compaction request (every stage, too) carries the checkpoint it merges into
    assert "<previous-checkpoint>\n(none)" in request_text(requests[0])
    for n in range(2, len(requests) + 1):
        assert f"gen{n - 1} 0" in request_text(requests[n - 1])
    last = len(requests)
    summary = rig.agent.state.summary
    assert f"gen{last} 5" in summary and summary == rig.mw.session.summary_message_text()
    # the agent's next request starts with the checkpoint, right after the system prompt
    script.add("fine")
    await rig.ask("short question")
    sent = script.agent_calls[-1]["messages"]
    assert sent[0]["role"] == "system" and f"gen{last} 0" in str(sent[1]["content"])
    # nothing new to compact: the summary is kept as it is
    rig.mw.keep_recent_tokens = 10**6
    done = await rig.mw.compact_now(AgentView(rig.agent))
    assert done.messages_compacted == 0
    assert rig.mw.session.summary.strip() == checkpoint(f"gen{last}").strip()
    assert len(rig.compacted) == 3 and all(rig.compacted)
    assert fake_llm.violations == []


async def test_summary_missing_sections_is_retried_then_filled_from_previous(
    rig_factory, fake_llm
) -> None:
    replies = iter(
        [
            checkpoint("first"),
            "Sure! Here is what happened: we talked.",  # no sections at all
            "## Goal\n- new goal from second",  # retry: still missing five sections
        ]
    )
    script = Script(fake_llm, summaries=lambda body, n: next(replies))
    rig = rig_factory(keep_recent_tokens=150)
    turn = 0
    while len(_done(rig.notices)) < 2 and turn < 40:
        script.add(f"answer {turn}")
        await rig.ask(words(60, seed=turn))
        turn += 1
    first, second = _done(rig.notices)[:2]
    assert first.filled_sections == ()
    assert len(second.filled_sections) == 5 and second.error is None
    assert "## Constraints & Preferences" in second.filled_sections
    summary = rig.mw.session.summary
    assert "new goal from second" in summary
    for index, heading in enumerate(sections("")):
        assert heading in summary
        if index:
            assert f"first {index}" in summary  # kept from the previous checkpoint
    # the retry told the model what was missing, in the same conversation
    retry_messages = script.compactions[2]["messages"]
    assert retry_messages[-2]["role"] == "assistant" and "Key Decisions" in str(retry_messages[-1])


async def test_context_length_exceeded_forces_compaction_and_retries_once(
    rig_factory, fake_llm
) -> None:
    script = Script(fake_llm)
    rig = rig_factory(max_input_length=20_000, keep_recent_tokens=150)
    for turn in range(4):
        script.add(f"answer {turn}")
        await rig.ask(words(60, seed=turn))
    assert script.compactions == []  # far below the configured threshold
    overflow = ErrorTurn(
        400, "This model's maximum context length is 4096 tokens", code="context_length_exceeded"
    )
    script.add(overflow, "answer after compaction")
    events = await rig.ask("one more question")
    text = "".join(
        getattr(e, "delta", "") for e in events if type(e).__name__ == "TextBlockDeltaEvent"
    )
    assert text == "answer after compaction"
    [done] = _done(rig.notices)
    assert done.trigger == "overflow" and done.messages_compacted > 0
    retried = script.agent_calls[-1]["messages"]
    assert "gen1 0" in str(retried[1]["content"])
    assert content_text(retried[-1]) == "one more question"
    assert len(retried) < len(script.agent_calls[-2]["messages"])

    # a second overflow right after the forced compaction is not retried again
    script.add(overflow, overflow, "never sent")
    with pytest.raises(openai.BadRequestError):
        await rig.ask("and another")
    assert fake_llm.violations == []


async def test_long_single_turn_with_many_tool_calls_compacts_mid_turn(
    rig_factory, fake_llm
) -> None:
    tool = text_tool("probe", lambda kw: words(110, seed=hash(kw["path"]) % 997))
    steps = [tool_calls(("probe", {"path": f"f{i}"})) for i in range(14)]
    steps.append("all probes done")
    script = Script(fake_llm, steps=steps)
    rig = rig_factory(tools=[tool], keep_recent_tokens=300)
    events = await rig.ask("probe every file")
    assert type(events[-1]).__name__ == "ReplyEndEvent"
    assert len(script.compactions) >= 2
    assert fake_llm.violations == []
    # the reply is still one message whose id is the reply id
    last = rig.agent.state.context[-1]
    assert last.id == rig.agent.state.reply_id
    assert last.get_text_content().endswith("all probes done")
    # every request after a compaction starts with the checkpoint and has no orphan tool result
    compacted_requests = 0
    for body in script.agent_calls[1:]:
        messages = body["messages"]
        if "conversation-checkpoint" in request_text({"messages": messages[1:2]}):
            compacted_requests += 1
            assert len(messages) > 2, "the newest tool call and result are kept"
            assert messages[2]["role"] != "tool"
    assert compacted_requests >= 2
    # the compacted blocks were handed to the long-term memory hook, tool pairs intact
    handed = [block for msgs in rig.compacted for m in msgs for block in m.content]
    calls = {b.id for b in handed if b.type == "tool_call"}
    results = {b.id for b in handed if b.type == "tool_result"}
    assert calls and calls == results


async def test_compact_now_keeps_recent_messages_and_uses_focus(rig_factory, fake_llm) -> None:
    script = Script(fake_llm)
    rig = rig_factory(max_input_length=20_000, keep_recent_tokens=200)
    for turn in range(5):
        script.add(f"answer {turn}")
        await rig.ask(words(60, seed=turn))
    done = await rig.mw.compact_now(AgentView(rig.agent), focus="the database migration")
    assert done.trigger == "manual" and done.messages_compacted > 0
    assert "the database migration" in request_text(script.compactions[0])
    context = rig.agent.state.context
    assert context and context[-1].get_text_content() == "answer 4"
    assert rig.mw.session.estimate_tokens()["messages_tokens"] <= 200
