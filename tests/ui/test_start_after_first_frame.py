"""The TUI paints its first frame from the settings as read (`Pending`) and checks them right
after: the settings models (pydantic) and the core are not loaded before that frame; a line sent
before the session started is sent once it has; a bad value ends the app with its one line."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from remecli.config.sources import read_sources
from remecli.ui.start import Pending, Ready, prepare
from remecli.ui.tui.app import RemeApp
from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.command_menu import CommandMenu
from tests.ui.test_app_pilot import wait_until

FIRST_FRAME = """
import sys, tempfile
from remecli.config.sources import read_sources
from remecli.ui.start import Pending, prepare
from remecli.ui.tui.app import RemeApp

ARGS = ["config=cli", "llm.api_key=sk-x", f"working_dir={tempfile.mkdtemp()}"]
LATER = ("pydantic", "remecli.config.settings", "remecli.commands.chat_session", "remecli.agent")

class FirstFrame(RemeApp):
    def on_ready(self):
        super().on_ready()
        print("LOADED", sorted({m for m in sys.modules if m.startswith(LATER)}), flush=True)

    async def session_started(self, note):
        await super().session_started(note)
        print("STARTED", self.settings.llm.api_key, flush=True)
        self.exit()

sources = read_sources(ARGS)
FirstFrame(Pending(sources, lambda: prepare(sources, ARGS))).run(headless=True, size=(100, 30))
"""


def test_the_first_frame_comes_before_the_settings_models_and_the_session(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    lines = proc.stdout.splitlines()
    assert lines[:2] == ["LOADED []", "STARTED sk-x"], proc.stdout + proc.stderr[-3000:]


def pending(fake_llm, tmp_path: Path, *extra: str, gate: threading.Event | None = None) -> Pending:
    args = [
        "config=cli",
        f"llm.base_url={fake_llm.base_url}",
        "llm.api_key=sk-test",
        "llm.model_name=fake-model",
        f"working_dir={tmp_path / '.reme'}",
        f"tools.workspace={tmp_path}",
        "memory.summarize=false",
        "search.embedding.backend=none",
        *extra,
    ]
    sources = read_sources(args, environ={}, cwd=tmp_path)

    def checked() -> Ready:
        if gate is not None:
            assert gate.wait(30)  # the settings are being checked until the test lets go
        return prepare(sources, args)

    return Pending(sources, checked)


async def test_a_line_sent_before_the_session_started_is_sent_once_it_has(
    fake_llm, tmp_path
) -> None:
    fake_llm.add_text("Answer to the early line.")
    gate = threading.Event()
    app = RemeApp(pending(fake_llm, tmp_path, gate=gate), cwd=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"early line")
        await pilot.press("enter")
        await pilot.press(*"/he")
        assert not app.started
        gate.set()
        answered = lambda: any("early line" in m.text for m in app.query(AssistantMessage))  # noqa: E731
        await wait_until(pilot, lambda: app.started and not app.replying and answered())
        assert app.query_one("#input").text == "/he"  # typed ahead, kept
        assert app.query_one(CommandMenu).is_open  # and its menu shown once the session started
        assert app.status.model_name == "fake-model"
    assert fake_llm.chat_requests()[0].body["messages"][-1]["content"] == "early line"


async def test_a_bad_value_ends_the_app_with_its_line_and_exit_code_2(fake_llm, tmp_path) -> None:
    app = RemeApp(pending(fake_llm, tmp_path, "llm.max_retries=abc"), cwd=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.start_problem is not None)
    assert app.start_problem is not None and app.start_problem.code == 2
    assert str(app.start_problem).startswith("invalid setting 'llm.max_retries' (got 'abc')")
    assert app.return_code == 2


def test_the_chat_starts_without_the_command_table(tmp_path) -> None:
    """`remecli key=value …` goes straight to the chat: click and the commands are not loaded
    (a bad setting still gets its line and exit code 2 there)."""
    code = (
        "import sys; from remecli.__main__ import main; "
        "code = main(['config=cli', 'llm.modle=x']); "
        "print(code, sorted(m for m in sys.modules if m.split('.')[0] == 'click'))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert proc.stdout.splitlines() == ["2 []"], proc.stdout + proc.stderr
    assert proc.stderr.startswith("remecli: unknown setting 'llm.modle' (on the command line)")
