"""Two remecli on one working dir (issue 15.3): the second never summarizes or resumes the
first one's live conversation; once the first is gone, it can."""

from __future__ import annotations

from tests.agent.conftest import collect
from tests.memory_flows.conftest import daily_file


async def test_a_live_conversation_is_neither_recovered_nor_resumed(
    assistant_factory, fake_llm, memory_model
) -> None:
    live = assistant_factory("memory.summarize=true")
    await collect(live, "the vault code is in the blue binder")
    session_id = live.agent.state.session_id

    second = assistant_factory("memory.summarize=true")
    await second.start()
    assert second.pending_summaries() == 0  # the live conversation is not "crashed"
    await second.close()
    assert not (second.working_dir / "memory").exists() or not any(
        (second.working_dir / "memory").rglob("*.md")
    )

    intruder = assistant_factory(f"resume={session_id}")
    events = await collect(intruder, "hello")
    assert any("open in another remecli" in getattr(e, "message", "") for e in events), events

    await live.close()  # its own exit saves it, once: one card
    cards = sorted(daily_file(live.working_dir).with_suffix("").glob("*.md"))
    assert len(cards) == 1 and "blue binder" in cards[0].read_text()
