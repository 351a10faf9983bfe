"""Pilot tests of the chat app against the fake LLM server (real agent, real HTTP)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from remecli.config import load_settings
from remecli.ui.tui.app import RemeApp
from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.chat_input import ChatInput
from remecli.ui.tui.widgets.status_line import StatusLine
from remecli.ui.tui.widgets.tool_panel import ToolPanel


def make_app(fake_llm, tmp_path: Path, *extra: str) -> RemeApp:
    settings = load_settings(
        [
            "config=cli",
            f"llm.base_url={fake_llm.base_url}",
            "llm.api_key=sk-test",
            "llm.model_name=fake-model",
            f"working_dir={tmp_path / '.reme'}",
            f"tools.workspace={tmp_path}",
            "memory.summarize=false",  # summaries have their own tests; keep requests scripted
            "search.embedding.backend=none",  # keyword search only: no model load in UI tests
            *extra,
        ],
        environ={},
        cwd=tmp_path,
    )
    return RemeApp(settings, cwd=tmp_path)


async def wait_until(pilot, predicate, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.05)


async def type_and_send(pilot, text: str) -> None:
    box = pilot.app.query_one(ChatInput)
    box.load_text(text)
    await pilot.press("enter")


async def ask(pilot, text: str) -> AssistantMessage:
    """Send `text` and wait until the whole answer is in; returns the (last) answer."""
    app = pilot.app
    await type_and_send(pilot, text)
    await wait_until(pilot, lambda: not app.replying and app.query(AssistantMessage))
    return list(app.query(AssistantMessage))[-1]


async def test_input_is_focused_at_start_and_status_shows_model(fake_llm, tmp_path) -> None:
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        assert isinstance(app.focused, ChatInput)
        status = app.query_one(StatusLine)
        await wait_until(pilot, lambda: status.state == "ready")
        assert status.model_name == "fake-model"
        assert "fake-model" in str(status.render())


async def test_question_streams_answer_and_shows_tool_panel(fake_llm, tmp_path) -> None:
    (tmp_path / "todo.md").write_text("- buy milk\n")
    fake_llm.add_tool_calls([("read", {"path": "todo.md"})], text="Reading.")
    fake_llm.add_text("You need to **buy milk**.", chunk_size=3)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.query_one(StatusLine).state == "ready")
        await type_and_send(pilot, "What is on my list?")
        await wait_until(
            pilot, lambda: any("buy milk" in m.text for m in app.query(AssistantMessage))
        )
        await wait_until(pilot, lambda: not app.replying)
        [panel] = app.query(ToolPanel)
        assert panel.tool_name == "read" and panel.state == "success"
        assert "todo.md" in panel.preview and "buy milk" in panel.output
        assert app.query_one(StatusLine).tokens > 0


async def test_unknown_slash_command_and_help(fake_llm, tmp_path) -> None:
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "/nope")
        await pilot.pause(0.1)
        errors = [w for w in app.query(".error")]
        assert errors and "Unknown command" in str(errors[-1].render())
        await type_and_send(pilot, "/help")
        await pilot.pause(0.2)
        from remecli.ui.tui.screens.text_screen import TextScreen

        assert isinstance(app.screen, TextScreen) and "/compact" in app.screen.markdown
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, TextScreen)
    assert fake_llm.requests == []


async def test_no_api_key_still_starts_and_says_how(tmp_path) -> None:
    settings = load_settings(
        ["config=cli", f"working_dir={tmp_path / '.reme'}"], environ={}, cwd=tmp_path
    )
    app = RemeApp(settings, cwd=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        texts = " ".join(str(w.render()) for w in app.query(".error"))
        assert "REME_LLM_API_KEY" in texts
        assert isinstance(app.focused, ChatInput)


async def test_exit_command_quits(fake_llm, tmp_path) -> None:
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_and_send(pilot, "/exit")
        await pilot.pause(0.3)
    assert app.return_code == 0
