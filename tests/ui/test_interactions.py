"""Pilot tests of the interactions a user relies on all day."""

from __future__ import annotations

from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.chat_input import ChatInput
from remecli.ui.tui.widgets.command_menu import CommandMenu
from remecli.ui.tui.widgets.status_line import StatusLine
from remecli.ui.tui.widgets.tool_panel import ToolPanel
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until


async def ready(pilot) -> None:
    await wait_until(pilot, lambda: pilot.app.query_one(StatusLine).state == "ready")


async def test_escape_cancels_mid_stream_and_context_stays_consistent(fake_llm, tmp_path) -> None:
    fake_llm.add_text("word " * 400, chunk_size=5, chunk_delay=0.02)
    fake_llm.add_text("next answer")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "talk a lot")
        await wait_until(pilot, lambda: any(m.text for m in app.query(AssistantMessage)))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.replying)
        partial = app.query(AssistantMessage).first().text
        assert 0 < len(partial) < len("word " * 400)
        assert any("cancelled" in str(w.render()) for w in app.query(".notice"))
        await type_and_send(pilot, "and now?")
        await wait_until(
            pilot, lambda: any("next answer" in m.text for m in app.query(AssistantMessage))
        )
    assert fake_llm.violations == []


async def test_escape_cancels_a_running_tool_call(fake_llm, tmp_path) -> None:
    fake_llm.add_tool_calls([("bash", {"command": "sleep 30"})])
    fake_llm.add_text("after the cancel")
    app = make_app(fake_llm, tmp_path, "tools.approval=never")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "wait a while")
        await wait_until(
            pilot,
            lambda: (
                len(app.query(ToolPanel)) == 1 and "running" in app.query_one(ToolPanel).preview
            ),
        )
        await pilot.pause(0.3)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.replying, timeout=10)
        assert app.query_one(ToolPanel).state == "interrupted"
        await type_and_send(pilot, "go on")
        await wait_until(
            pilot, lambda: any("after the cancel" in m.text for m in app.query(AssistantMessage))
        )
    # the second request carries a result for the interrupted call: no orphan tool call
    assert fake_llm.violations == []
    second = fake_llm.chat_requests()[-1].body["messages"]
    assert any(m["role"] == "tool" for m in second)


async def test_input_history_recall_and_persistence(fake_llm, tmp_path) -> None:
    fake_llm.set_fallback("ok")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        for text in ("first question", "second question"):
            await type_and_send(pilot, text)
            await wait_until(pilot, lambda: not app.replying)
        box = app.query_one(ChatInput)
        await pilot.press("up")
        assert box.text == "second question"
        await pilot.press("up")
        assert box.text == "first question"
        await pilot.press("down", "down")
        assert box.text == ""
    app2 = make_app(fake_llm, tmp_path)
    async with app2.run_test(size=(100, 30)) as pilot:
        await pilot.press("up")
        assert app2.query_one(ChatInput).text == "second question"


async def test_newline_key_makes_multiline_input(fake_llm, tmp_path) -> None:
    fake_llm.add_text("got it")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("l", "i", "n", "e", "1", "ctrl+j", "l", "i", "n", "e", "2")
        assert app.query_one(ChatInput).text == "line1\nline2"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.replying and fake_llm.chat_requests())
    sent = fake_llm.chat_requests()[0].body["messages"][-1]["content"]
    text = sent if isinstance(sent, str) else "".join(p.get("text", "") for p in sent)
    assert text == "line1\nline2"


async def test_slash_autocomplete_from_registry(fake_llm, tmp_path) -> None:
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("slash", "c")
        menu = app.query_one(CommandMenu)
        assert menu.is_open
        names = [menu.get_option_at_index(i).id for i in range(menu.option_count)]
        assert names == ["compact", "clear", "copy"]  # /copy joined the registry (issue 16)
        await pilot.press("tab")
        assert app.query_one(ChatInput).text == "/compact "
        assert not menu.is_open
        assert isinstance(app.focused, ChatInput)


async def test_theme_setting_and_unknown_theme(fake_llm, tmp_path) -> None:
    app = make_app(fake_llm, tmp_path, "theme=remecli-light")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.05)
        assert app.theme == "remecli-light"
        assert not app.current_theme.dark
    app = make_app(fake_llm, tmp_path, "theme=no-such-theme")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.1)
        notes = [n.message for n in app._notifications]
        assert any("unknown theme 'no-such-theme'" in m and "remecli-dark" in m for m in notes)


async def test_horse_overlay_starts_and_ends_on_a_key(fake_llm, tmp_path) -> None:
    from remecli.ui.tui.horse import HorseScreen

    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_and_send(pilot, "/horse")
        await pilot.pause(0.3)
        assert isinstance(app.screen, HorseScreen)
        await pilot.press("x")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, HorseScreen)
        assert isinstance(app.focused, ChatInput)
    assert fake_llm.requests == []


async def test_command_palette_lists_slash_commands(fake_llm, tmp_path) -> None:
    from textual.command import CommandPalette

    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        assert isinstance(app.screen, CommandPalette)
        for key in "/help":
            await pilot.press(key if key != "/" else "slash")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause(0.3)
        from remecli.ui.tui.screens.text_screen import TextScreen

        assert isinstance(app.screen, TextScreen)


async def test_history_screen_lists_messages_with_token_stats(fake_llm, tmp_path) -> None:
    from remecli.ui.tui.screens.text_screen import TextScreen

    fake_llm.add_text("Paris.")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "capital of France?")
        await wait_until(pilot, lambda: not app.replying)
        await type_and_send(pilot, "/history")
        await pilot.pause(0.2)
        assert isinstance(app.screen, TextScreen)
        text = app.screen.markdown
        assert "capital of France?" in text and "Paris." in text and "tokens" in text.lower()
        await pilot.press("q")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, TextScreen)


async def test_thinking_is_shown_dimmed_and_collapsed_after_the_answer(fake_llm, tmp_path) -> None:
    from textual.widgets import Collapsible

    fake_llm.add_text("42.", reasoning="Let me think about the question first.")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "answer?")
        await wait_until(pilot, lambda: not app.replying)
        message = app.query_one(AssistantMessage)
        [box] = message.query(Collapsible)
        assert box.collapsed and "think" in str(message.query_one(".thinking").render())
        assert message.text == "42."
