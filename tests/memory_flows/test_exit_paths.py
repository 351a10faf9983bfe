"""Every path out of a conversation hands it to long-term memory (daily file, or a recorded
pending task when the user forces the exit)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import psutil
import pytest

from remecli.agent import events as ev
from tests.agent.conftest import collect
from tests.e2e.test_real_terminal import remecli_script
from tests.e2e.tmux_driver import TmuxSession, tmux_available
from tests.memory_flows.conftest import daily_file
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


def summarizing_app(fake_llm, tmp_path: Path):
    return make_app(fake_llm, tmp_path, "memory.summarize=true")


@pytest.mark.parametrize("how", ["/exit", "ctrl+d", "ctrl+q", "ctrl+c ctrl+c"])
async def test_quitting_the_tui_writes_the_daily_file(
    fake_llm, memory_model, tmp_path, how
) -> None:
    app = summarizing_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, f"note for {how}: the cache lives in /var/cache/app")
        await wait_until(pilot, lambda: not app.replying)
        if how == "/exit":
            await type_and_send(pilot, "/exit")
        else:
            await pilot.press(*how.split())
        await wait_until(pilot, lambda: app.return_code is not None, timeout=30)
    text = daily_file(tmp_path / ".reme").read_text()
    assert f"note for {how}" in text


async def test_second_ctrl_c_forces_exit_and_keeps_work_pending(fake_llm, tmp_path) -> None:
    fake_llm.set_fallback("ok")
    app = summarizing_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "the release is on friday")
        await wait_until(pilot, lambda: not app.replying)
        from tests.fakes.turns import TextTurn

        fake_llm.set_fallback(TextTurn("slow", delay=20))  # the summarizer hangs
        await pilot.press("ctrl+q")
        await pilot.pause(0.5)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app.return_code is not None, timeout=15)
    pending = list((tmp_path / ".reme" / "sessions" / "pending").glob("*.json"))
    assert pending, "the unsaved conversation must stay recorded"
    assert "friday" in pending[0].read_text()
    assert not daily_file(tmp_path / ".reme").exists()


async def test_pending_work_is_summarized_at_next_start(fake_llm, memory_model, tmp_path) -> None:
    from remecli.conversation.file_memory import FileMemory
    from tests.agent.conftest import make_settings

    pending = tmp_path / ".reme" / "sessions" / "pending"
    pending.mkdir(parents=True)
    from agentscope.message import UserMsg

    record = {
        "id": "t1",
        "date": time.strftime("%Y-%m-%d"),
        "attempts": 1,
        "last_error": "killed",
        "messages": [
            UserMsg(name="user", content="left over from a crash").model_dump(mode="json")
        ],
    }
    (pending / "t1.json").write_text(json.dumps(record))
    memory = FileMemory(
        tmp_path / ".reme",
        settings=make_settings(fake_llm, tmp_path, "memory.summarize=true"),
        search=False,
    )
    await memory.start()
    await memory.close()
    assert "left over from a crash" in daily_file(tmp_path / ".reme").read_text()
    assert not list(pending.glob("*.json"))


async def test_auto_compaction_saves_the_compacted_part(
    assistant_factory, fake_llm, memory_model
) -> None:
    assistant = assistant_factory(
        "memory.summarize=true",
        "max_input_length=2000",
        "memory_compact_ratio=0.5",
        "memory.keep_recent_tokens=50",
    )
    memory_model.answer = "word " * 150
    fake_llm.add_text("first answer " * 60)
    events = await collect(assistant, "the first fact: the port is 8443")
    fake_llm.add_text(
        "## Goal\nx\n## Constraints & Preferences\nx\n## Progress\nx\n## Key Decisions\nx\n## Next Steps\nx\n## Critical Context\nx"
    )
    events = await collect(assistant, "and the second fact")
    assert any(isinstance(e, ev.CompactionDone) and e.messages_compacted for e in events)
    await assistant.memory.await_summary_tasks()
    assert "the port is 8443" in daily_file(assistant.working_dir).read_text()


needs_tmux = pytest.mark.skipif(
    not tmux_available(), reason="tmux is not installed (.ci/run installs it)"
)


def chat_in_tmux(fake_llm, tmp_path: Path, line: str) -> tuple[TmuxSession, psutil.Process]:
    """The installed remecli in a real terminal, after one answered message."""
    env = {"REME_LLM_API_KEY": "sk-test", "HOME": str(tmp_path), "TERM": "xterm-256color"}
    cmd = [
        remecli_script(),
        "config=cli",
        f"llm.base_url={fake_llm.base_url}",
        "llm.model_name=fake-model",
        "search.embedding.backend=none",
        f"working_dir={tmp_path / '.reme'}",  # the memory home would be elsewhere
    ]
    term = TmuxSession(cmd, cwd=tmp_path, env=env)
    try:
        term.wait_for("ready", timeout=60)
        term.type(line)
        term.wait_for("ok", timeout=30)
        return term, _remecli_process(fake_llm.base_url)
    except BaseException:
        term.kill()
        raise


@needs_tmux
def test_sigterm_saves_memory_before_exiting(fake_llm, memory_model, tmp_path: Path) -> None:
    term, app = chat_in_tmux(fake_llm, tmp_path, "remember: backups run at 02:00")
    try:
        os.kill(app.pid, signal.SIGTERM)
        term.wait_for("REMECLI-EXITED=0", timeout=30)
    finally:
        term.kill()
    assert "backups run at 02:00" in daily_file(tmp_path / ".reme").read_text()


@needs_tmux
def test_closing_the_terminal_saves_memory_and_ends_the_process(
    fake_llm, memory_model, tmp_path: Path
) -> None:
    term, app = chat_in_tmux(fake_llm, tmp_path, "remember: the wifi password is on the fridge")
    try:
        term.close()  # the terminal goes away: SIGHUP
        app.wait(timeout=60)  # raises if remecli lingers
    finally:
        term.kill()  # never leave a lingering remecli behind for the rest of the suite
    assert "wifi password is on the fridge" in daily_file(tmp_path / ".reme").read_text()


def _remecli_process(base_url: str) -> psutil.Process:
    """The remecli this test started (its fake server's URL is unique to the test)."""
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if (
            any(part.endswith("/remecli") for part in cmdline[:2])
            and f"llm.base_url={base_url}" in cmdline
        ):
            return proc
    raise AssertionError("remecli process not found")


async def test_a_crashed_session_is_saved_at_next_start(
    assistant_factory, fake_llm, memory_model
) -> None:
    crashed = assistant_factory("memory.summarize=true")
    await collect(crashed, "the vault code is in the blue binder")
    # no close(): the process died here (its state file was saved after the turn), and the
    # kernel dropped the locks a dead process held
    crashed.runtime.conversation.lock.release()
    survivor = assistant_factory("memory.summarize=true")
    await survivor.start()
    await survivor.memory.await_summary_tasks()
    assert "blue binder" in daily_file(survivor.working_dir).read_text()
    await survivor.close()
    third = assistant_factory("memory.summarize=true")  # already recovered: not summarized again
    await third.start()
    assert third.pending_summaries() == 0
    await third.close()
