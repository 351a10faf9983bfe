"""`/resume <id>` inside the app continues a conversation with the model it was held with, as
`resume=<id>` on the command line does (the key stays the app's: keys are never recorded)."""

from __future__ import annotations

from remecli.agent import events as ev
from tests.agent.test_chat_session import new_session, read_until_handled


async def test_resume_in_the_app_answers_with_the_recorded_model(fake_llm, tmp_path) -> None:
    fake_llm.add_text("Noted: blue.")
    first = new_session(fake_llm, tmp_path, "llm.model_name=m-recorded")
    first.submit("my favourite colour is blue")
    await read_until_handled(first)
    old_id = first.assistant.agent.state.session_id
    await first.close()

    session = new_session(fake_llm, tmp_path, "llm.model_name=m-other")
    await session.start()
    session.resume(old_id)
    events = await read_until_handled(session)
    assert any(isinstance(e, ev.Notice) and "answers with m-recorded" in e.text for e in events)
    fake_llm.add_text("Blue.")
    session.submit("what is my favourite colour?")
    await read_until_handled(session)
    assert fake_llm.chat_requests()[-1].body["model"] == "m-recorded"  # was: m-other
    await session.close()
