"""Issue 21, item 4 (and 13 in the TUI): the everyday defects of the TUI, through Textual's pilot
against the fake server."""

from __future__ import annotations

from remecli.ui.tui.screens.text_screen import TextScreen
from remecli.ui.tui.widgets.chat_input import ChatInput
from remecli.ui.tui.widgets.chat_view import ChatView
from remecli.ui.tui.widgets.status_line import StatusLine
from remecli.ui.tui.widgets.tool_panel import ToolPanel
from tests.memory_flows.test_commands import CHECKPOINT
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


def _texts(app, selector: str) -> list[str]:
    return [str(w.render()) for w in app.query(selector)]


def _top(chat: ChatView) -> tuple[str, float]:
    """The widget at the top of the view (its first words) and how far into it the view is."""
    for child in chat.children:
        if child.virtual_region.bottom > chat.scroll_y:
            return str(child.render())[:12], chat.scroll_y - child.virtual_region.y
    raise AssertionError("nothing on screen")


async def test_an_unknown_theme_falls_back_to_remecli_dark_and_says_so_once(
    fake_llm, tmp_path
) -> None:
    app = make_app(fake_llm, tmp_path, "theme=no-such-theme")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert app.theme == "remecli-dark"
        said = [n.message for n in app._notifications if "no-such-theme" in n.message]
        assert len(said) == 1 and "remecli-dark" in said[0]
        assert not [t for t in _texts(app, ".error") if "no-such-theme" in t]  # said once


async def test_text_typed_while_a_page_is_open_waits_in_the_prompt(fake_llm, tmp_path) -> None:
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/help")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen))
        await pilot.press("w", "h", "y", "space", "n", "o", "t")
        assert isinstance(app.screen, TextScreen)  # the page's own keys still work below
        await pilot.press("q")  # closes the page, and is not typed
        await wait_until(pilot, lambda: not isinstance(app.screen, TextScreen))
        box = app.query_one(ChatInput)
        assert box.text == "why not" and app.focused is box


async def test_the_key_that_answers_a_dialog_is_not_typed_into_the_prompt(
    fake_llm, tmp_path
) -> None:
    from remecli.ui.tui.screens.approval_screen import ApprovalScreen

    fake_llm.add_tool_calls([("write", {"path": "/etc/x.conf", "content": "a\n"})])
    fake_llm.add_text("Left it.")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "write it")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("n")
        await wait_until(pilot, lambda: not app.replying)
        assert app.query_one(ChatInput).text == ""


async def test_ctrl_o_opens_and_closes_the_newest_tool_panel(fake_llm, tmp_path) -> None:
    fake_llm.add_tool_calls([("bash", {"command": "seq 1 3"})])
    fake_llm.add_tool_calls([("bash", {"command": "seq 1 40"})])
    fake_llm.add_text("Counted.")
    app = make_app(fake_llm, tmp_path, "tools.approval=never")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "count")
        await wait_until(pilot, lambda: not app.replying and len(app.query(ToolPanel)) == 2)
        first, newest = app.query(ToolPanel)
        assert first.collapsed and newest.collapsed
        await pilot.press("ctrl+o")
        assert not newest.collapsed and first.collapsed
        await pilot.pause(0.1)
        assert "\n40" in str(newest._body.render())
        await pilot.press("ctrl+o")
        assert newest.collapsed
        await type_and_send(pilot, "/help")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen))
        assert "Ctrl+O" in app.screen.markdown


async def test_a_resize_keeps_what_the_user_scrolled_back_to(fake_llm, tmp_path) -> None:
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        chat = app.query_one(ChatView)
        for n in range(40):
            await chat.add_notice(f"• note {n:02} " + "word " * 30)
        await pilot.pause()
        await pilot.press("pageup", "pageup")
        await pilot.pause()
        before = _top(chat)
        assert chat.scroll_y < chat.max_scroll_y
        await pilot.resize_terminal(70, 30)  # every note wraps onto more lines
        await pilot.pause(0.2)
        assert _top(chat)[0] == before[0] and chat.scroll_y < chat.max_scroll_y
        await pilot.resize_terminal(100, 24)
        await pilot.pause(0.2)
        assert _top(chat)[0] == before[0]


async def test_the_compaction_count_survives_resume(fake_llm, tmp_path) -> None:
    fake_llm.set_fallback(lambda body: "Noted, go on." if body.get("tools") else CHECKPOINT)
    first = make_app(fake_llm, tmp_path, "memory.keep_recent_tokens=20")
    async with first.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        for line in ("we deploy on Fridays " * 30, "tabs over spaces " * 30, "what next?"):
            await type_and_send(pilot, line)
            await wait_until(pilot, lambda: not first.replying)
        await type_and_send(pilot, "/compact")
        await wait_until(pilot, lambda: first.status.compactions == 1 and not first.replying)
        await type_and_send(pilot, "/exit")
        await wait_until(pilot, lambda: first.return_code is not None)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/resume")
        await wait_until(pilot, lambda: app.screen is not app.screen_stack[0])
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: any("Resumed conversation" in t for t in _texts(app, ".notice"))
        )
        status = app.query_one(StatusLine)
        assert status.compactions == 1 and "1 compaction" in str(status.render())


async def test_ctrl_d_names_itself_and_the_exit_says_how_to_resume(fake_llm, tmp_path) -> None:
    fake_llm.add_text("Hello.")
    app = make_app(fake_llm, tmp_path, "memory.summarize=true")
    fake_llm.set_fallback("nothing worth keeping")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hi")
        await wait_until(pilot, lambda: not app.replying)
        session_id = app.assistant.context.session_id
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: any("Saving" in t for t in _texts(app, ".notice")))
        [saving] = [t for t in _texts(app, ".notice") if "Saving" in t]
        assert "Ctrl+D again to quit now" in saving and "Ctrl+C" not in saving
        await wait_until(pilot, lambda: app.return_code is not None, timeout=60)
    # run_tui prints it once the app has closed (tests/e2e/test_real_terminal_typeahead.py)
    # the memory is named: this folder would not find it (tests/model_gate: works as printed)
    assert app.resume_line.startswith(
        f"To continue this conversation: remecli resume={session_id} working_dir="
    )
