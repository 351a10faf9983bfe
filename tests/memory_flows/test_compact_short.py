"""`/compact` on a conversation shorter than the keep-recent budget (issue 16.4): it compacts
everything but the last exchange, and saves the whole conversation to long-term memory."""

from __future__ import annotations

from remecli.agent import events as ev
from tests.memory_flows.test_commands import CHECKPOINT, DETAIL, chat, daily_file, run


async def test_compact_under_the_keep_recent_budget_keeps_only_the_last_exchange(
    assistant_factory, fake_llm, memory_model
) -> None:
    assistant = assistant_factory("memory.summarize=true")  # keep_recent_tokens: 10,000
    await chat(
        assistant,
        f"I prefer tabs over spaces{DETAIL}",
        f"we deploy with make ship{DETAIL}",
        "what next?",
    )
    last_question = assistant.agent.state.context[-2]
    fake_llm.add_text(CHECKPOINT)
    events = await run(assistant, "compact")
    [done] = [e for e in events if isinstance(e, ev.CompactionDone)]
    assert done.messages_compacted == 4  # two earlier exchanges (user + answer each)
    context = assistant.agent.state.context
    assert [m.role for m in context] == ["user", "assistant"]
    assert context[0].id == last_question.id  # the last exchange is what stays
    assert "## Goal" in str(assistant.agent.state.summary)
    await assistant.memory.await_summary_tasks()
    saved = daily_file(assistant.working_dir).read_text()
    assert "tabs over spaces" in saved


async def test_history_shows_the_checkpoint_text(assistant_factory, fake_llm, memory_model) -> None:
    assistant = assistant_factory("memory.summarize=true")
    await chat(assistant, f"I prefer tabs over spaces{DETAIL}", f"we deploy with make ship{DETAIL}")
    assert "Checkpoint" not in assistant.history_markdown()
    fake_llm.add_text(CHECKPOINT)
    await run(assistant, "compact")
    text = assistant.history_markdown()
    assert "**Checkpoint**" in text and "Makefile target `ship`" in text
    assert text.index("Makefile target") < text.index("we deploy with make ship")


async def test_the_context_meter_counts_prompt_and_tools_right_after_a_resume(
    assistant_factory, fake_llm
) -> None:
    first = assistant_factory()
    fake_llm.add_text("hi there")
    await chat(first, "hello")
    measured = first.context_usage().tokens
    await first.close()
    resumed = assistant_factory("resume=last")
    await resumed.start()
    assert resumed.context_usage().tokens >= measured > 500  # prompt + tool schemas included
    await resumed.close()
