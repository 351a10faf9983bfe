"""/new says what happened to the previous conversation, truthfully."""

from __future__ import annotations

from remecli.agent import events as ev
from tests.agent.conftest import collect


async def _new_notice(assistant) -> str:
    notices = [e.text async for e in assistant.new_conversation() if isinstance(e, ev.Notice)]
    return notices[-1]


async def test_new_does_not_claim_a_save_when_summaries_are_off(
    assistant_factory, fake_llm
) -> None:
    assistant = assistant_factory()  # memory.summarize=false
    fake_llm.add_text("hi")
    await collect(assistant, "hello")
    notice = await _new_notice(assistant)
    assert "memory.summarize is off" in notice and "being saved" not in notice
    await assistant.close()


async def test_new_with_nothing_said_has_nothing_to_save(assistant_factory) -> None:
    assistant = assistant_factory("memory.summarize=true")
    await assistant.start()
    notice = await _new_notice(assistant)
    assert "nothing new to save" in notice
    await assistant.close()
