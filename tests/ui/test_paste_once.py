"""A paste lands exactly once, whatever its line ends (issue 21, defect 2)."""

from __future__ import annotations

import pytest
from textual import events
from textual.app import App, ComposeResult

from remecli.ui.tui.widgets.chat_input import ChatInput, InputHistory
from remecli.ui.tui.widgets.chat_view import UserMessage
from tests.ui.test_app_pilot import make_app, wait_until
from tests.ui.test_interactions import ready

ENDINGS = {"LF": "\n", "CRLF": "\r\n", "CR": "\r"}


class InputApp(App[None]):
    """Just the chat input, as the terminal's paste reaches it (through the app)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    def compose(self) -> ComposeResult:
        yield ChatInput(InputHistory(None))

    def on_chat_input_submitted(self, message: ChatInput.Submitted) -> None:
        self.sent.append(message.text)


async def paste(pilot, text: str) -> ChatInput:
    """Paste `text` as a terminal does (a Paste event to the app) and let it settle."""
    box = pilot.app.query_one(ChatInput)
    box.focus()
    pilot.app.post_message(events.Paste(text))
    await pilot.pause()
    await pilot.pause()
    return box


async def test_a_one_line_paste_is_inserted_once() -> None:
    async with InputApp().run_test() as pilot:
        box = await paste(pilot, "hello-paste")
        assert box.text == "hello-paste"
        box.insert(" and typed")
        await paste(pilot, "again")
        assert box.text == "hello-paste and typedagain"


@pytest.mark.parametrize("ending", ENDINGS.values(), ids=ENDINGS.keys())
async def test_a_short_multi_line_paste_is_inserted_once_with_newlines(ending: str) -> None:
    async with InputApp().run_test() as pilot:
        box = await paste(pilot, ending.join(["one", "two", "three"]) + ending)
        assert box.text == "one\ntwo\nthree\n"
        await pilot.press("enter")
        assert pilot.app.sent == ["one\ntwo\nthree"]


@pytest.mark.parametrize("ending", ENDINGS.values(), ids=ENDINGS.keys())
async def test_a_long_paste_shows_its_real_line_count_once(ending: str) -> None:
    rows = [f"row {n}" for n in range(300)]
    async with InputApp().run_test() as pilot:
        box = await paste(pilot, ending.join(rows) + ending)
        assert box.text == "[pasted 300 lines]"
        await pilot.press("enter")
        assert pilot.app.sent == ["\n".join(rows)]


async def test_a_paste_replaces_the_selection() -> None:
    async with InputApp().run_test() as pilot:
        box = pilot.app.query_one(ChatInput)
        box.load_text("keep THIS keep")
        box.select_all()
        await paste(pilot, "new")
        assert box.text == "new"


async def test_a_long_cr_paste_is_sent_in_full_by_the_app(fake_llm, tmp_path) -> None:
    fake_llm.add_text("got it")
    rows = [f"row {n}" for n in range(300)]
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        box = await paste(pilot, "\r".join(rows) + "\r")
        assert box.text == "[pasted 300 lines]"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(fake_llm.chat_requests()) == 1)
        assert "[pasted 300 lines]" in str(app.query_one(UserMessage).render())
    sent = fake_llm.chat_requests()[0].body["messages"][-1]
    text = sent["content"] if isinstance(sent["content"], str) else sent["content"][0]["text"]
    assert text == "\n".join(rows)
