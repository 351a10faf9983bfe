"""Things that must never break the TUI: markup in model text, typing before the agent is
ready, a boot failure, Enter on the approval prompt."""

from __future__ import annotations

from remecli.ui.tui.screens.approval_screen import ApprovalScreen
from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


async def test_reasoning_and_answer_with_brackets_render_as_text(fake_llm, tmp_path) -> None:
    fake_llm.add_text(
        "Use list[str] and [/nope] literally.", reasoning="thinking about [/b] and [bold]x"
    )
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "types?")
        await wait_until(pilot, lambda: not app.replying)
        assert app.is_running
        assert "list[str]" in app.query_one(AssistantMessage).text


async def test_typing_before_ready_starts_the_agent_once(fake_llm, tmp_path, monkeypatch) -> None:
    from remecli.agent.assistant import Assistant

    starts: list[int] = []
    real_start = Assistant._start

    async def counted_start(self: Assistant) -> None:
        starts.append(1)
        await real_start(self)

    monkeypatch.setattr(Assistant, "_start", counted_start)
    fake_llm.add_text("early answer")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "so fast")
        await wait_until(
            pilot, lambda: any("early answer" in m.text for m in app.query(AssistantMessage))
        )
        await wait_until(pilot, lambda: not app.replying)
        assert app.assistant.memory is not None
        assert app.assistant._starting is not None
        assert len(starts) == 1


async def test_enter_on_the_approval_prompt_denies(fake_llm, tmp_path) -> None:
    (tmp_path / "build").mkdir()
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build"})])
    fake_llm.add_text("ok, not removed")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "clean")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.replying)
    assert (tmp_path / "build").exists()


async def test_unwritable_working_dir_is_reported_not_a_crash(fake_llm, tmp_path) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    app = make_app(fake_llm, tmp_path, f"working_dir={blocker / '.reme'}")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.query(".error"), timeout=20)
        await type_and_send(pilot, "hello?")
        await pilot.pause(0.3)
        assert app.is_running
        texts = " ".join(str(w.render()) for w in app.query(".error"))
        assert "Could not start the agent" in texts
    assert fake_llm.requests == []


async def test_resume_shows_the_previous_conversation(fake_llm, tmp_path) -> None:
    fake_llm.add_tool_calls([("ls", {"path": "."})], text="Looking.")
    fake_llm.add_text("Your folder has files.")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "what is here?")
        await wait_until(pilot, lambda: not app.replying)
        await type_and_send(pilot, "/exit")
        await wait_until(pilot, lambda: app.return_code is not None)
    resumed = make_app(fake_llm, tmp_path, "resume=last")
    async with resumed.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        users = [str(w.render()) for w in resumed.query(".user")]
        assert any("what is here?" in u for u in users)
        assert any("Your folder has files." in m.text for m in resumed.query(AssistantMessage))
        from remecli.ui.tui.widgets.tool_panel import ToolPanel

        assert [p.tool_name for p in resumed.query(ToolPanel)] == ["ls"]


async def test_ctrl_d_with_a_draft_does_not_quit_and_typing_returns_to_the_prompt(
    fake_llm, tmp_path
) -> None:
    from remecli.ui.tui.widgets.chat_input import ChatInput

    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d", "r", "a", "f", "t", "home", "ctrl+d")
        await pilot.pause(0.1)
        assert app.is_running and app.query_one(ChatInput).text == "raft"
        app.query_one(ChatInput).blur()
        await pilot.press("x")
        assert isinstance(app.focused, ChatInput) and app.query_one(ChatInput).text.startswith("x")


async def test_palette_quit_saves_memory_like_exit(fake_llm, memory_model, tmp_path) -> None:
    from tests.memory_flows.conftest import daily_file

    app = make_app(fake_llm, tmp_path, "memory.summarize=true")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "remember the palette quits too")
        await wait_until(pilot, lambda: not app.replying)
        await app.action_quit()
        await wait_until(pilot, lambda: app.return_code is not None, timeout=30)
    assert "palette quits too" in daily_file(tmp_path / ".reme").read_text()
