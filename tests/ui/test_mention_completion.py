"""`@` in the prompt offers workspace paths; Tab completes; the model gets the file, the chat
shows only the mention."""

from __future__ import annotations

from remecli.ui.tui.widgets.chat_input import ChatInput
from remecli.ui.tui.widgets.chat_view import UserMessage
from remecli.ui.tui.widgets.command_menu import CommandMenu
from tests.fakes.messages import content_text
from tests.ui.test_app_pilot import make_app, wait_until
from tests.ui.test_interactions import ready


def options(menu: CommandMenu) -> list[str]:
    return [str(menu.get_option_at_index(i).prompt) for i in range(menu.option_count)]


async def test_at_completes_paths_and_attaches_the_file(fake_llm, tmp_path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print('hello from main')\n")
    (tmp_path / "setup.cfg").write_text("[metadata]\n")
    fake_llm.add_text("It prints a greeting.")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        menu = app.query_one(CommandMenu)
        box = app.query_one(ChatInput)
        await pilot.press(*"what does @", "s")
        await wait_until(pilot, lambda: menu.is_open and menu.mode == "paths")
        assert options(menu) == ["@setup.cfg", "@src/"]
        await pilot.press("down", "tab")
        assert box.text == "what does @src/"
        await wait_until(pilot, lambda: options(menu) == ["@src/main.py"])
        await pilot.press("tab")
        assert box.text == "what does @src/main.py "
        await pilot.press(*"do?")
        assert not menu.is_open
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.replying and len(fake_llm.chat_requests()) == 1)
        [shown] = app.query(UserMessage)
        assert shown.text == "what does @src/main.py do?"
    sent = [m for m in fake_llm.chat_requests()[0].body["messages"] if m["role"] == "user"][-1]
    assert "1\tprint('hello from main')" in content_text(sent)
