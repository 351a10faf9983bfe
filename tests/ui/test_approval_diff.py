"""The approval dialog shows what an `edit` does to the file: a diff with its surrounding
lines and line numbers, computed before the call runs."""

from __future__ import annotations

from remecli.ui.tui.screens.approval_screen import ApprovalScreen
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


async def test_edit_approval_shows_the_file_diff_with_context(fake_llm, tmp_path) -> None:
    lines = [f"line {n}" for n in range(1, 21)]
    (tmp_path / "app.py").write_text("\n".join(lines) + "\n")
    fake_llm.add_tool_calls([("edit", {"path": "app.py", "old_text": "line 12", "new_text": "X"})])
    fake_llm.add_text("Changed.")
    app = make_app(fake_llm, tmp_path, "tools.approval=always")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "change line 12")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        shown = "\n".join(str(w.render()) for w in app.screen.query(".call Static"))
        assert "edit app.py at line 12" in shown
        assert "@@ -9,7 +9,7 @@" in shown  # where in the file, with line numbers
        assert " line 11" in shown and "-line 12" in shown and "+X" in shown
        assert (tmp_path / "app.py").read_text().count("line 12") == 1  # not run yet
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.replying)
    assert "X\n" in (tmp_path / "app.py").read_text()
