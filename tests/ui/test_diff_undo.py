"""/diff and /undo in the TUI: the page shows the reply's diff, /undo restores the files and
the chat says which."""

from __future__ import annotations

from remecli.ui.tui.screens.text_screen import TextScreen
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


def notices(app) -> str:
    return "\n".join(str(w.render()) for w in app.query(".notice"))


async def test_diff_page_and_undo_of_the_last_reply(fake_llm, tmp_path) -> None:
    (tmp_path / "todo.md").write_text("- buy milk\n")
    fake_llm.add_tool_calls(
        [
            ("edit", {"path": "todo.md", "old_text": "buy milk", "new_text": "buy oat milk"}),
            ("bash", {"command": "echo done > log.txt"}),
        ]
    )
    fake_llm.add_text("Updated.")
    app = make_app(fake_llm, tmp_path, "tools.approval=never")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "make it oat milk")
        await wait_until(pilot, lambda: not app.replying)
        await type_and_send(pilot, "/diff")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen))
        page = app.screen.markdown
        assert "-- buy milk" in page and "+- buy oat milk" in page and "+done" in page
        await pilot.press("escape")
        await type_and_send(pilot, "/undo")
        await wait_until(pilot, lambda: "Undid reply #1" in notices(app))
        assert "restored todo.md; deleted log.txt (created by that reply)" in notices(app)
    assert (tmp_path / "todo.md").read_text() == "- buy milk\n"
    assert not (tmp_path / "log.txt").exists()
