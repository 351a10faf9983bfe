"""`ChatSession` over the scripted fake OpenAI server: one line in, one event stream out."""

from __future__ import annotations

import asyncio
from pathlib import Path

from remecli.agent import events as ev
from remecli.commands import session_events as se
from remecli.commands.chat_session import ChatSession
from remecli.llm.retry import call_with_backoff
from tests.agent.conftest import make_settings
from tests.fakes.messages import content_text


def new_session(fake_llm, tmp_path: Path, *extra: str) -> ChatSession:
    return ChatSession(make_settings(fake_llm, tmp_path, *extra), cwd=tmp_path)


async def read_until_handled(session: ChatSession, lines: int = 1, on_event=None) -> list:
    """The events up to the `lines`-th `InputHandled` (answering questions with `on_event`)."""
    seen: list = []

    async def read() -> None:
        handled = 0
        async for event in session.events():
            seen.append(event)
            if on_event is not None:
                on_event(event)
            if isinstance(event, se.InputHandled):
                handled += 1
                if handled == lines:
                    return

    await asyncio.wait_for(read(), timeout=30)
    return seen


def kinds(events: list) -> list[type]:
    return [type(e) for e in events]


def sent_user_texts(fake_llm) -> list[str]:
    return [
        content_text(m)
        for r in fake_llm.chat_requests()
        for m in r.body["messages"][-1:]
        if m["role"] == "user"
    ]


async def test_a_message_streams_its_reply_between_start_and_end(fake_llm, tmp_path) -> None:
    fake_llm.add_text("Hello there.", chunk_size=4)
    session = new_session(fake_llm, tmp_path)
    session.submit("hi")
    events = await read_until_handled(session)
    order = kinds(events)
    assert order[:3] == [se.UserTurn, se.WorkStarted, se.MessageSent]
    assert order.index(ev.TextDelta) < order.index(ev.ReplyFinished) < order.index(se.WorkEnded)
    assert order[-1] is se.InputHandled and events[-1].text == "hi"
    assert "".join(e.text for e in events if isinstance(e, ev.TextDelta)) == "Hello there."
    assert events[0] == se.UserTurn("hi", queued=True)  # the agent was not started yet
    assert not session.busy
    await session.close()


async def test_commands_run_and_slash_text_goes_to_the_model(fake_llm, tmp_path) -> None:
    session = new_session(fake_llm, tmp_path)
    session.submit("/help")
    [page] = [e for e in await read_until_handled(session) if isinstance(e, se.ShowPage)]
    assert page.title == "help" and "/compact" in page.markdown
    session.submit("/hlep")
    [error] = [e for e in await read_until_handled(session) if isinstance(e, ev.ErrorReport)]
    assert "Unknown command '/hlep'" in error.message and "Did you mean /help?" in error.message
    assert fake_llm.requests == []  # no command reached the model
    fake_llm.add_text("Noted.")
    fake_llm.add_text("Literally.")
    session.submit("/srv/data is where I keep stuff")
    await read_until_handled(session)
    session.submit("//help")
    await read_until_handled(session)
    assert sent_user_texts(fake_llm) == ["/srv/data is where I keep stuff", "/help"]
    await session.close()


async def test_lines_typed_during_a_reply_queue_and_run_in_order(fake_llm, tmp_path) -> None:
    fake_llm.add_text("one " * 40, chunk_size=4, chunk_delay=0.02)
    fake_llm.add_text("two")
    session = new_session(fake_llm, tmp_path)
    await session.start()
    session.submit("first")
    session.submit("second")
    session.submit("/new")
    session.submit("/help")  # not conversation-changing: runs at once, alongside the reply
    events = await read_until_handled(session, lines=4)
    assert se.UserTurn("second", queued=True) in events and se.CommandQueued("/new") in events
    handled = [e.text for e in events if isinstance(e, se.InputHandled)]
    assert handled == ["/help", "first", "second", "/new"]
    assert sent_user_texts(fake_llm) == ["first", "second"]
    new_notice = [e for e in events if isinstance(e, ev.Notice) and "New conversation" in e.text]
    assert new_notice and events.index(se.ClearView()) < events.index(new_notice[0])
    await session.close()


async def test_cancel_ends_the_reply_and_the_queue_goes_on(fake_llm, tmp_path) -> None:
    fake_llm.add_text("slow " * 2000, chunk_size=5, chunk_delay=0.03)
    fake_llm.add_text("after")
    session = new_session(fake_llm, tmp_path)
    session.submit("talk")
    session.submit("next")

    def cancel_on_first_text(event) -> None:
        if isinstance(event, ev.TextDelta) and "slow" in event.text:
            session.cancel()

    events = await read_until_handled(session, lines=2, on_event=cancel_on_first_text)
    assert se.WorkEnded(cancelled=True) in events
    assert "after" in "".join(e.text for e in events if isinstance(e, ev.TextDelta))
    await session.close()


async def test_an_approval_request_carries_a_future_the_front_end_answers(
    fake_llm, tmp_path
) -> None:
    (tmp_path / "build").mkdir()
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build && echo removed"})])
    fake_llm.add_text("Done.")
    session = new_session(fake_llm, tmp_path)
    asked: list = []

    def approve(event) -> None:
        if isinstance(event, ev.ApprovalRequest):
            asked.append(event.request.tool_name)
            event.answer.set_result("yes")

    session.submit("clean the build")
    events = await read_until_handled(session, on_event=approve)
    assert asked == ["bash"] and not (tmp_path / "build").exists()
    [finished] = [e for e in events if isinstance(e, ev.ToolFinished)]
    assert finished.state == "success" and "removed" in finished.output
    await session.close()


async def test_cancel_under_an_approval_question_cancels_its_future(fake_llm, tmp_path) -> None:
    (tmp_path / "build").mkdir()
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build"})])
    session = new_session(fake_llm, tmp_path)
    questions: list[ev.ApprovalRequest] = []

    def cancel_instead(event) -> None:
        if isinstance(event, ev.ApprovalRequest):
            questions.append(event)
            session.cancel()

    session.submit("clean the build")
    events = await read_until_handled(session, on_event=cancel_instead)
    [question] = questions
    assert question.answer.cancelled() and se.WorkEnded(cancelled=True) in events
    assert (tmp_path / "build").exists()
    await session.close()


async def test_resume_and_new_rebind_the_assistant_inside_the_session(fake_llm, tmp_path) -> None:
    fake_llm.add_text("Noted: blue.")
    first = new_session(fake_llm, tmp_path)
    first.submit("my favourite colour is blue")
    await read_until_handled(first)
    old_id = first.assistant.agent.state.session_id
    await first.close()

    session = new_session(fake_llm, tmp_path)
    await session.start()
    before = session.assistant
    session.resume(old_id)
    events = await read_until_handled(session)
    assert [type(e) for e in events if isinstance(e, se.Resuming | se.ClearView | se.Resumed)] == [
        se.Resuming,
        se.ClearView,
        se.Resumed,
    ]
    [replay] = [e for e in events if isinstance(e, se.Replay)]
    assert ev.UserMessage("my favourite colour is blue") in replay.events
    assert se.Resumed(old_id, 1) in events
    assert session.assistant is not before and session.assistant.agent.state.session_id == old_id
    fake_llm.add_text("Blue.")
    session.submit("what is my favourite colour?")
    await read_until_handled(session)
    sent = [content_text(m) for m in fake_llm.chat_requests()[-1].body["messages"][1:]]
    assert sent == ["my favourite colour is blue", "Noted: blue.", "what is my favourite colour?"]

    session.new()
    events = await read_until_handled(session)
    assert se.ClearView() in events
    assert any(isinstance(e, ev.Notice) and "New conversation" in e.text for e in events)
    assert session.assistant.agent.state.session_id != old_id
    await session.close()


async def test_retries_are_events_of_the_session_that_made_the_call(fake_llm, tmp_path) -> None:
    fake_llm.add_error(500, "upstream broke")
    fake_llm.add_text("made it")
    session = new_session(fake_llm, tmp_path)
    bystander = new_session(fake_llm, tmp_path / "other")
    session.submit("hi")
    events = await read_until_handled(session)
    [retry] = [e for e in events if isinstance(e, ev.Retrying)]
    assert retry.line == "retrying (1/3) after HTTP 500…"
    assert kinds(events).index(ev.Retrying) < kinds(events).index(ev.TextDelta)
    assert bystander.unread == 0  # no process-global listeners: nobody else hears it

    async def flaky() -> str:
        if not calls:
            calls.append(1)
            raise TimeoutError("first try")
        return "ok"

    calls: list[int] = []
    outside = await call_with_backoff(
        flaky, 1, base_delay=0.01, retryable=lambda e: True, what="outside"
    )
    assert outside == "ok" and session.unread == 0  # a call outside the session stays quiet
    await session.close()
