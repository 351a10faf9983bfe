"""Issue 21, item 8: compaction on a small window (keep_recent_tokens scaled to it), and `/compact`
on a short chat (nothing to compact: no model call, no summary, no "saved 0")."""

from __future__ import annotations

from remecli.agent import events as ev
from remecli.agent.notice_text import notice_line
from tests.agent.conftest import collect
from tests.memory_flows.test_commands import CHECKPOINT, chat, run

ANSWER = "Here is what I found about that, in a few sentences of plain detail. " * 6


async def test_a_small_window_does_not_compact_at_every_turn(assistant_factory, fake_llm) -> None:
    # the agent's requests carry tools; the compactor's do not
    fake_llm.set_fallback(lambda body: ANSWER if body.get("tools") else CHECKPOINT)
    assistant = assistant_factory("max_input_length=5000")  # keep_recent_tokens stays 10,000
    turns, compactions = 10, 0
    for n in range(turns):
        events = await collect(assistant, f"question {n}: " + "tell me more " * 20)
        done = [e for e in events if isinstance(e, ev.CompactionDone) and e.messages_compacted]
        compactions += len(done)
        usage = assistant.context_usage()
        if done:  # a compaction ends well under the threshold, not over it again
            assert done[-1].tokens_after < usage.threshold, done
    assert 0 < compactions <= turns // 3, compactions
    await assistant.close()


async def test_compact_on_a_short_chat_says_nothing_to_compact_and_asks_no_model(
    assistant_factory, fake_llm
) -> None:
    fake_llm.set_fallback(CHECKPOINT)
    assistant = assistant_factory("memory.summarize=true")
    fake_llm.add_text("Hi! What shall we do?")
    fake_llm.add_text("Sure.")
    await chat(assistant, "hello", "let's plan")
    asked = len(fake_llm.chat_requests())
    events = await run(assistant, "compact")
    [done] = [e for e in events if isinstance(e, ev.CompactionDone)]
    assert done.messages_compacted == 0
    line = notice_line(done) or ""
    assert "Nothing to compact" in line and "saved" not in line
    await assistant.memory.await_summary_tasks()
    assert len(fake_llm.chat_requests()) == asked  # no checkpoint, no long-term summary
    await assistant.close()
