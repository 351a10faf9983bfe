"""Issue 16 in the TUI: queued input, long pastes, /clear forgetting typed input, /resume,
the palette before typing, line breaks and the segmented answer renderer."""

from __future__ import annotations

import json

from textual import events

from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.chat_input import ChatInput
from remecli.ui.tui.widgets.chat_view import ChatView, UserMessage
from remecli.ui.tui.widgets.markdown_cuts import safe_cut
from tests.ui.test_app_pilot import ask, make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


async def test_a_message_typed_while_loading_shows_at_once_marked_queued(
    fake_llm, tmp_path
) -> None:
    fake_llm.add_text("answered")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "early bird")
        await pilot.pause(0)
        [user] = app.query(UserMessage)
        assert user.text == "early bird"
        if not app.assistant.ready:
            assert user.queued and "queued" in str(user.render())
        await wait_until(
            pilot, lambda: any("answered" in m.text for m in app.query(AssistantMessage))
        )
        assert not user.queued and "queued" not in str(user.render())


async def test_new_while_a_reply_runs_is_queued_and_runs_after_it(fake_llm, tmp_path) -> None:
    fake_llm.add_text("slow " * 2000, chunk_size=5, chunk_delay=0.03)  # ~60 s unless cancelled
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "talk")
        await wait_until(pilot, lambda: any(m.text for m in app.query(AssistantMessage)))
        await type_and_send(pilot, "/new")
        await wait_until(
            pilot, lambda: any("/new queued" in str(w.render()) for w in app.query(".notice"))
        )
        assert app.replying and app.query(AssistantMessage)  # /new waits for the reply
        await pilot.press("escape")  # the reply ends (cancelled): the queued /new runs now
        await wait_until(pilot, lambda: not app.replying and not app.query(AssistantMessage))
        await wait_until(
            pilot, lambda: any("New conversation" in str(w.render()) for w in app.query(".notice"))
        )


async def test_a_long_paste_collapses_and_is_sent_in_full(fake_llm, tmp_path) -> None:
    fake_llm.add_text("got it")
    pasted = "\n".join(f"row {n}" for n in range(300))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        box = app.query_one(ChatInput)
        box.post_message(events.Paste(pasted))
        await wait_until(pilot, lambda: box.text == "[pasted 300 lines]")
        box.insert(" summarize")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.replying and app.query(AssistantMessage))
        user = app.query_one(UserMessage)
        assert user.collapsed and "[pasted 300 lines] (click to expand)" in str(user.render())
        assert "row 299" not in str(user.render())
        await pilot.click(UserMessage)
        assert not user.collapsed and "row 299" in str(user.render())
    sent = fake_llm.chat_requests()[0].body["messages"][-1]
    text = sent["content"] if isinstance(sent["content"], str) else sent["content"][0]["text"]
    assert text == pasted + " summarize"


async def test_clear_removes_what_was_typed_from_the_input_history(fake_llm, tmp_path) -> None:
    fake_llm.add_text("one")
    fake_llm.add_text("two")
    app = make_app(fake_llm, tmp_path)
    history = tmp_path / ".reme" / "input_history.jsonl"
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "keep me")
        await wait_until(pilot, lambda: not app.replying)
        await type_and_send(pilot, "/new")
        await wait_until(pilot, lambda: not app.replying)
        await type_and_send(pilot, "my secret plan")
        await wait_until(pilot, lambda: not app.replying)
        await type_and_send(pilot, "/clear")
        await wait_until(pilot, lambda: not app.replying)
        entries = [json.loads(line) for line in history.read_text().splitlines()]
        assert entries == ["keep me", "/new"]
        assert app.query_one(ChatInput).input_history.entries == ["keep me", "/new"]


async def test_resume_picker_continues_a_saved_conversation(fake_llm, tmp_path) -> None:
    fake_llm.add_text("Fridays we ship.")
    first = make_app(fake_llm, tmp_path)
    async with first.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "when do we deploy?")
        await wait_until(pilot, lambda: not first.replying)
        await type_and_send(pilot, "/exit")
        await wait_until(pilot, lambda: first.return_code is not None)
    from remecli.ui.tui.screens.session_picker import SessionPicker

    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/resume")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPicker))
        assert "when do we deploy?" in str(
            app.screen.query_one("OptionList").get_option_at_index(0).prompt
        )
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: any("Fridays we ship." in m.text for m in app.query(AssistantMessage))
        )
        await wait_until(
            pilot,
            lambda: any("Resumed conversation" in str(w.render()) for w in app.query(".notice")),
        )
        assert any(u.text == "when do we deploy?" for u in app.query(UserMessage))


async def test_palette_lists_slash_commands_before_typing(fake_llm, tmp_path) -> None:
    from textual.command import CommandList, CommandPalette

    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        options = app.screen.query_one(CommandList)
        await wait_until(pilot, lambda: options.option_count > 0)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any("/compact" in s for s in shown) and any("/resume" in s for s in shown)


async def test_single_newlines_are_line_breaks_and_long_answers_are_segmented(
    fake_llm, tmp_path
) -> None:
    section = "## Part {n}\n\nfirst line\nsecond line\n\n```python\nx = {n}\n```\n\n"
    answer = "".join(section.format(n=n) for n in range(80))
    fake_llm.add_text(answer, chunk_size=40)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        message = await ask(pilot, "long please")
        assert message.text == answer
        segments = message.segments
        assert len(segments) > 1  # finished parts are frozen in their own widgets
        assert "".join(segment.source for segment in segments) == answer
        assert all(segment.source.count("```") % 2 == 0 for segment in segments)  # no block cut
        shown = segments[0].plain_text().splitlines()
        assert "first line" in shown and "second line" in shown  # a single newline breaks
        assert app.query_one(ChatView)


def test_safe_cut_never_splits_code_or_indented_continuations() -> None:
    text = "para\n\n```\ncode\n\nmore code\n```\n\n- item\n\n    indented\n\nnext para\n"
    cut = safe_cut(text, 0)
    assert text[cut:] == "next para\n"
    assert safe_cut("```\na\n\nb\n", 0) is None
