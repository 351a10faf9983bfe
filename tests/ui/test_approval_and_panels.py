"""Pilot tests: the approval prompt (yes / no / always) and an expandable tool panel."""

from __future__ import annotations

from remecli.ui.tui.screens.approval_screen import ApprovalScreen
from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.tool_panel import ToolPanel
from tests.fakes.messages import tool_texts
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


def tool_results(fake_llm) -> list[str]:
    return tool_texts(fake_llm.chat_requests()[-1].body)


async def test_approve_runs_the_dangerous_command(fake_llm, tmp_path) -> None:
    (tmp_path / "build").mkdir()
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build && echo removed"})])
    fake_llm.add_text("Done.")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "clean the build")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert "rm -rf build" in str(app.screen.arguments) and app.screen.reason
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.replying)
    assert not (tmp_path / "build").exists()
    assert "removed" in tool_results(fake_llm)[-1]


async def test_deny_returns_denied_and_the_loop_continues(fake_llm, tmp_path) -> None:
    (tmp_path / "build").mkdir()
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build"})])
    fake_llm.add_text("Understood, I left it.")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "clean the build")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.click("#no")
        await wait_until(pilot, lambda: not app.replying)
        assert app.query_one(ToolPanel).state == "denied"
        assert any("left it" in m.text for m in app.query(AssistantMessage))
    assert (tmp_path / "build").exists()
    assert "denied" in tool_results(fake_llm)[-1].lower()


async def test_always_stops_asking_for_the_rest_of_the_session(fake_llm, tmp_path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf a"})])
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf b"})])
    fake_llm.add_text("Both gone.")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "remove a and b")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("a")
        await wait_until(pilot, lambda: not app.replying)
        asked_again = isinstance(app.screen, ApprovalScreen)
    assert not asked_again
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


async def test_tool_panel_shows_preview_and_expands_to_full_output(fake_llm, tmp_path) -> None:
    fake_llm.add_tool_calls([("bash", {"command": "seq 1 40"})])
    fake_llm.add_text("Counted.")
    app = make_app(fake_llm, tmp_path, "tools.approval=never")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "count to 40")
        await wait_until(pilot, lambda: not app.replying)
        panel = app.query_one(ToolPanel)
        assert panel.state == "success" and panel.duration is not None
        assert panel.collapsed
        assert "bash" in panel.preview and "seq 1 40" in panel.preview and "✓" in panel.preview
        body = str(panel._body.render())
        assert "more lines" in body and "40" not in body.splitlines()[-2]
        panel.collapsed = False
        await pilot.pause(0.1)
        assert "\n40" in str(panel._body.render())
