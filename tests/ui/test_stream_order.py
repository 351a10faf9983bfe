"""Issue 37, items 2 and 3: what arrives during a streamed answer is shown after it, never
inside it: a background notice, and a message queued while the answer was cancelled."""

from __future__ import annotations

from remecli.agent import events as ev
from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.chat_view import ChatView, UserMessage
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready

DREAM = "Dream failed: the model timed out. The cards are kept for the next run."


def _shown(app) -> list[str]:
    """The conversation's widgets in order: 'answer', or the first words of what they say."""
    return [
        "answer" if isinstance(widget, AssistantMessage) else str(widget.render())[:40]
        for widget in app.query_one(ChatView).children
        if not widget.has_class("welcome")
    ]


def streamed_answer(fake_llm) -> str:
    """A long answer the fake server streams slowly (so something can happen during it)."""
    answer = " ".join(f"w{n}" for n in range(150))
    fake_llm.add_text(answer, chunk_size=6, chunk_delay=0.02)
    return answer


async def send_and_wait_for_midway(pilot, app) -> None:
    """Send a message and wait until its answer is streaming (past its 20th word)."""
    await ready(pilot)
    await type_and_send(pilot, "talk")
    await wait_until(pilot, lambda: "w20 " in "".join(m.text for m in app.query(AssistantMessage)))


async def test_a_notice_during_a_streamed_answer_follows_it(fake_llm, tmp_path) -> None:
    answer = streamed_answer(fake_llm)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await send_and_wait_for_midway(pilot, app)
        app.assistant.notices.put(ev.Notice(DREAM, "memory"))  # as a finished dream does
        await wait_until(pilot, lambda: not app.replying)
        [message] = app.query(AssistantMessage)  # one answer, not split by the notice
        assert message.text == answer
        assert _shown(app)[-2:] == ["answer", f"• {DREAM}"[:40]]


async def test_a_message_queued_during_a_cancelled_answer_follows_reply_cancelled(
    fake_llm, tmp_path
) -> None:
    fake_llm.add_text("word " * 400, chunk_size=5, chunk_delay=0.02)
    fake_llm.add_text("second answer")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "talk a lot")
        await wait_until(pilot, lambda: any(m.text for m in app.query(AssistantMessage)))
        await type_and_send(pilot, "and then this")
        await wait_until(pilot, lambda: any(w.queued for w in app.query(UserMessage)))
        await pilot.press("ctrl+c")
        await wait_until(
            pilot, lambda: any(m.text == "second answer" for m in app.query(AssistantMessage))
        )
        await wait_until(pilot, lambda: not app.replying)
        assert _shown(app) == [
            "talk a lot",
            "answer",
            "• Reply cancelled.",
            "and then this",
            "answer",
        ]
        assert not any(w.queued for w in app.query(UserMessage))


async def test_an_error_during_a_streamed_answer_follows_it(fake_llm, tmp_path) -> None:
    answer = streamed_answer(fake_llm)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await send_and_wait_for_midway(pilot, app)
        await type_and_send(pilot, "/nosuchcommand")  # answered at once, with an error
        await wait_until(pilot, lambda: not app.replying)
        [message] = app.query(AssistantMessage)
        assert message.text == answer
        assert _shown(app)[-2] == "answer" and "nosuchcommand" in _shown(app)[-1]
