"""Issue 37, item 6: /copy and Ctrl+C say truthfully where the text went. Inside tmux (whose
default drops an app's OSC 52) the text goes into tmux's paste buffer, checked on a real tmux
server; elsewhere the notice says it was sent by OSC 52, not that it was copied."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready

ANSWER = "Run:\n\n```bash\nmake ship\n```\n"


def _notices(app) -> list[str]:
    return [str(w.render()) for w in app.query(".notice")]


@pytest.fixture
def tmux_server(tmp_path, monkeypatch):
    """A private tmux server (no attached client), this process inside it as far as tmux's
    own commands can tell ($TMUX names its socket)."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    socket = tmp_path / "tmux.sock"
    subprocess.run(["tmux", "-S", str(socket), "new", "-d", "-s", "t", "sleep 600"], check=True)
    monkeypatch.setenv("TMUX", f"{socket},1,0")
    yield socket
    subprocess.run(["tmux", "-S", str(socket), "kill-server"], check=False)


async def answer_then_copy(pilot, app, command: str, marker: str) -> str:
    """Ask, wait for the answer, run `command` (a /copy); the one notice naming `marker`."""
    await ready(pilot)
    await type_and_send(pilot, "how do I ship?")
    await wait_until(pilot, lambda: not app.replying)
    await type_and_send(pilot, command)
    await wait_until(pilot, lambda: any(marker in n for n in _notices(app)))
    [said] = [n for n in _notices(app) if marker in n]
    return said


async def test_slash_copy_inside_tmux_fills_its_paste_buffer_and_says_so(
    fake_llm, tmp_path, tmux_server
) -> None:
    fake_llm.add_text(ANSWER)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        said = await answer_then_copy(pilot, app, "/copy 1", "code block 1")
        buffer = subprocess.run(
            ["tmux", "-S", str(tmux_server), "show-buffer"], capture_output=True, text=True
        )
        assert buffer.stdout == "make ship"
        assert said.startswith("• Copied code block 1 (1 line, 9 characters) into tmux's paste")


async def test_outside_tmux_copying_says_it_was_sent_not_that_it_arrived(
    fake_llm, tmp_path, monkeypatch
) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    fake_llm.add_text(ANSWER)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        said = await answer_then_copy(pilot, app, "/copy", "the last answer")
        assert said.startswith("• Sent the last answer (5 lines, 27 characters) to the clipboard")
        assert "OSC 52" in said and "Copied" not in said
        assert app.clipboard == ANSWER.strip()
        [segment] = app.query_one(AssistantMessage).segments
        await pilot.mouse_down(segment, offset=(1, 0))  # select "Run:" as a user does
        await pilot.hover(segment, offset=(5, 0))
        await pilot.mouse_up(segment, offset=(5, 0))
        await pilot.pause(0.1)
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert app.clipboard == "Run:"
        toasts = [n.message for n in app._notifications]
        assert toasts[-1].startswith("Sent 4 characters to the clipboard through the terminal")
