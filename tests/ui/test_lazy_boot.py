"""An app left open and untouched stays light: the agent runtime (agentscope and the model
clients, the token encoding, the memory index) loads at the first key typed, not at start; a
message sent at once still gets its answer, and a resumed conversation boots at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.chat_input import ChatInput
from remecli.ui.tui.widgets.status_line import StatusLine
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until


def boot_workers(app) -> list:
    return [worker for worker in app.workers if worker.name == "boot"]


async def test_the_agent_boots_at_the_first_key_not_at_start(fake_llm, tmp_path) -> None:
    fake_llm.add_text("booted and answering")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        status = app.query_one(StatusLine)
        await wait_until(pilot, lambda: status.state == "ready")  # it takes input at once
        await pilot.pause(1.0)
        assert boot_workers(app) == [] and not app.assistant.ready
        assert app.assistant.memory is None  # no index, no token encoding, no agent
        await pilot.press("h")
        await wait_until(pilot, lambda: app.assistant.ready, timeout=60)
        app.query_one(ChatInput).clear()
        await type_and_send(pilot, "hello")
        await wait_until(
            pilot, lambda: any("booted" in m.text for m in app.query(AssistantMessage))
        )


async def test_a_message_sent_before_any_key_boots_and_is_answered(fake_llm, tmp_path) -> None:
    fake_llm.add_text("answered straight away")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.query_one(StatusLine).state == "ready")
        assert boot_workers(app) == []
        app.submit("first words")  # a paste + Enter (or the palette): no edit before it
        await wait_until(
            pilot,
            lambda: any("straight away" in m.text for m in app.query(AssistantMessage)),
            timeout=60,
        )


IDLE_APP = textwrap.dedent(
    """
    import asyncio, sys
    from tests.ui.test_app_pilot import make_app

    HEAVY = ("agentscope", "openai", "mcp", "tiktoken", "tantivy")

    def heavy():
        return sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))

    class NoServer:
        base_url = "http://127.0.0.1:9/v1"

    async def main(tmp):
        app = make_app(NoServer(), tmp)
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(200):
                await pilot.pause(0.05)
                if str(app.query_one("StatusLine").state) == "ready":
                    break
            await pilot.pause(1.5)
            print("IDLE", heavy(), flush=True)
            await pilot.press("h")
            for _ in range(1200):
                await pilot.pause(0.05)
                if app.assistant.ready:
                    break
            print("TYPED", heavy(), flush=True)
            await app.session.close(force=True)

    from pathlib import Path
    asyncio.run(main(Path(sys.argv[1])))
    """
)


def test_an_idle_app_imports_no_agent_runtime_until_a_key(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", IDLE_APP, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = {line.split(" ", 1)[0]: line for line in proc.stdout.splitlines()}
    assert lines.get("IDLE") == "IDLE []", proc.stdout + proc.stderr[-3000:]
    typed = lines.get("TYPED", "")
    assert "agentscope" in typed and "tiktoken" in typed, proc.stdout + proc.stderr[-3000:]
