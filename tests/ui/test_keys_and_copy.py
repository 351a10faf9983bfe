"""Issue 16 in the TUI: Ctrl+C over the approval dialog, keyboard scrolling, select + copy,
/copy, the approval dialog's text and size, retries in the status line, cancelled tool panels."""

from __future__ import annotations

from remecli.ui.tui.screens.approval_screen import ApprovalScreen, always_hint, describe_call
from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.chat_view import ChatView
from remecli.ui.tui.widgets.status_line import StatusLine
from remecli.ui.tui.widgets.tool_panel import ToolPanel
from tests.ui.screen_text import screen_text
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


async def test_ctrl_c_with_the_approval_dialog_open_closes_it_and_denies(
    fake_llm, tmp_path
) -> None:
    (tmp_path / "build").mkdir()
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build"})])
    fake_llm.add_text("not removed")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "clean")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not isinstance(app.screen, ApprovalScreen))
        await wait_until(pilot, lambda: not app.replying)
        await pilot.press("y")  # goes to the prompt now, never to a dialog
        await pilot.pause(0.2)
        assert not isinstance(app.screen, ApprovalScreen)
        assert app.query_one("ChatInput").text == "y"
        assert app.is_running
    assert (tmp_path / "build").exists()


async def test_keyboard_scrolls_the_chat_and_sending_scrolls_to_the_new_message(
    fake_llm, tmp_path
) -> None:
    fake_llm.add_text("fresh answer")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(80, 20)) as pilot:
        await ready(pilot)
        chat = app.query_one(ChatView)
        for n in range(40):
            await chat.add_notice(f"• line {n}")
        await wait_until(
            pilot, lambda: chat.max_scroll_y > 20 and chat.scroll_y == chat.max_scroll_y
        )
        await pilot.press("pageup")  # (notices may still be laid out: compare with the bottom)
        await wait_until(pilot, lambda: chat.scroll_y < chat.max_scroll_y)
        after_page = chat.scroll_y
        await pilot.press("shift+up")
        await wait_until(pilot, lambda: chat.scroll_y == after_page - 1)
        await pilot.press("home")  # the prompt is empty: Home goes to the top
        await wait_until(pilot, lambda: chat.scroll_y == 0)
        await pilot.press("shift+down", "pagedown")
        await wait_until(pilot, lambda: chat.scroll_y > 1)
        await pilot.press("home")
        await wait_until(pilot, lambda: chat.scroll_y == 0)
        await type_and_send(pilot, "new question")  # sent while scrolled up
        await wait_until(pilot, lambda: not app.replying)
        await wait_until(pilot, lambda: chat.scroll_y == chat.max_scroll_y and chat.scroll_y > 0)
        await pilot.press("h", "i", "home")  # with text, Home edits the prompt
        assert app.query_one("ChatInput").cursor_location == (0, 0)
        assert chat.scroll_y == chat.max_scroll_y


async def test_ctrl_c_copies_a_selection_and_slash_copy_copies_answers(fake_llm, tmp_path) -> None:
    answer = "Use this:\n\n```bash\nmake ship\n```\n\nand then\n\n```python\nprint('done')\n```\n"
    fake_llm.add_text(answer)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "how do I deploy?")
        await wait_until(pilot, lambda: not app.replying)
        [segment] = app.query_one(AssistantMessage).segments
        # drag across "Use this:" with the mouse, as a user selects text
        await pilot.mouse_down(segment, offset=(1, 0))
        await pilot.hover(segment, offset=(10, 0))
        await pilot.mouse_up(segment, offset=(10, 0))
        await pilot.pause(0.1)
        assert app.screen.get_selected_text() == "Use this:"
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert app.clipboard == "Use this:"
        assert app.is_running and not app.screen.selections  # copied, nothing else happened
        await type_and_send(pilot, "/copy 2")
        await wait_until(pilot, lambda: app.clipboard == "print('done')")
        await type_and_send(pilot, "/copy")
        await wait_until(pilot, lambda: app.clipboard == answer.strip())
        assert any("the last answer (" in str(w.render()) for w in app.query(".notice"))
        await type_and_send(pilot, "/copy 3")
        await wait_until(
            pilot, lambda: any("blocks: 1–2" in str(w.render()) for w in app.query(".error"))
        )
        # without a selection, Ctrl+C is the old cancel / twice-to-quit
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert app.is_running


def test_approval_shows_a_write_as_path_and_diff_and_says_always_in_words(tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    shown = describe_call("write", {"path": "notes.txt", "content": "alpha\ngamma\n"}, tmp_path)
    assert shown.startswith("overwrite notes.txt") and "-beta" in shown and "+gamma" in shown
    big = "\n".join(f"line {n}" for n in range(500))
    preview = describe_call("write", {"path": "new.py", "content": big}, tmp_path)
    assert preview.startswith("new file new.py (500 lines)")
    assert "line 0" in preview and "line 499" not in preview
    assert "[440 more lines not shown]" in preview
    assert "\\n" not in preview
    assert always_hint("bash", "any", "the workspace") == (
        "Always = allow later bash calls inside the workspace, until /new or /clear."
    )
    assert "same risk (recursive delete)" in always_hint(
        "bash", "recursive-delete", "the workspace"
    )


async def test_approval_dialog_fits_a_40x15_terminal(fake_llm, tmp_path) -> None:
    fake_llm.add_tool_calls([("write", {"path": "/etc/x.conf", "content": "a\n" * 200})])
    fake_llm.add_text("ok")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(40, 15)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "write it")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause(0.3)
        screen = app.screen
        for button in ("#yes", "#no", "#always"):
            region = screen.query_one(button).region
            assert region.height >= 1 and region.bottom <= 15 and region.right <= 40, button
        shown = screen_text(app)  # the flat buttons still read as what they are
        assert "Yes (y)" in shown and "No (n)" in shown and "Always (a)" in shown, shown
        await pilot.press("n")
        await wait_until(pilot, lambda: not app.replying)


async def test_retries_show_in_the_status_line(fake_llm, tmp_path) -> None:
    fake_llm.add_error(500, "upstream broke")
    fake_llm.add_text("made it")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        status = app.query_one(StatusLine)
        states: list[str] = []
        app.watch(status, "state", lambda state: states.append(state), init=False)
        await type_and_send(pilot, "hi")
        await wait_until(
            pilot, lambda: any("made it" in m.text for m in app.query(AssistantMessage))
        )
        assert "retrying (1/3) after HTTP 500…" in states


async def test_a_cancelled_tool_shows_no_duration_and_new_resets_compactions(
    fake_llm, tmp_path
) -> None:
    fake_llm.add_tool_calls([("bash", {"command": "sleep 30"})])
    app = make_app(fake_llm, tmp_path, "tools.approval=never")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "wait")
        await wait_until(
            pilot,
            lambda: (
                "running" in (app.query(ToolPanel).first().preview if app.query(ToolPanel) else "")
            ),
        )
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.replying)
        panel = app.query_one(ToolPanel)
        assert panel.state == "interrupted"
        assert " · " not in panel.preview and "0.0s" not in panel.preview  # no duration shown
        status = app.query_one(StatusLine)
        status.compactions = 2
        await type_and_send(pilot, "/new")
        await wait_until(pilot, lambda: not app.replying and status.compactions == 0)
        assert not app.query(ToolPanel)
