"""Lines sent with Enter while remecli starts are taken out of the terminal before Textual reads
it (`early_keys`), so an early Enter always sends: never a race between Textual's reader thread
and the prompt's mount (issue 21, item 4; a clean-clone CI run merged two messages)."""

from __future__ import annotations

import os
import pty
import select
import sys
import termios
import time

import pytest

from remecli.ui.tui import early_keys
from remecli.ui.tui.widgets.chat_view import UserMessage
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch):
    """A real pseudo-terminal as stdin (line mode, Enter turned into LF, as a new terminal)."""
    master, slave = pty.openpty()
    stdin = os.fdopen(slave, "r")
    monkeypatch.setattr(sys, "stdin", stdin)
    try:
        yield master, slave
    finally:
        early_keys.restore()
        early_keys.take_lines()
        stdin.close()
        os.close(master)


def _readable(fd: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not select.select([fd], [], [], 0.05)[0]:
        assert time.monotonic() < deadline, "the terminal never had a line to read"


def test_lines_sent_before_the_hold_are_taken_and_the_line_being_typed_stays(terminal) -> None:
    master, slave = terminal
    os.write(
        master, b"SLOW one\r\x1b[Asecond \xc3\xa9\r\rhalf typ"
    )  # ↑ typed blind, é, an empty Enter
    _readable(slave)
    early_keys.hold_enter()
    assert early_keys.take_lines() == ["SLOW one", "second é"]
    assert early_keys.take_lines() == []  # once
    attributes = termios.tcgetattr(slave)
    attributes[3] &= ~termios.ICANON  # what Textual does next: raw
    termios.tcsetattr(slave, termios.TCSANOW, attributes)
    os.write(master, b"ed\r")
    time.sleep(0.2)
    assert os.read(slave, 100) == b"half typed\r"  # the rest for Textual; Enter now stays CR
    early_keys.restore()
    assert termios.tcgetattr(slave)[0] & termios.ICRNL  # the user's settings are back


async def test_the_prompt_sends_early_lines_first_each_on_its_own(fake_llm, tmp_path) -> None:
    fake_llm.add_text("first answer")
    fake_llm.add_text("second answer")
    fake_llm.add_text("third answer")
    early_keys._lines[:] = ["SLOW one", "queued message"]  # as hold_enter() leaves them
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "typed later")
        await wait_until(pilot, lambda: len(fake_llm.chat_requests()) == 3 and not app.replying)
        assert [u.text for u in app.query(UserMessage)] == [
            "SLOW one",
            "queued message",
            "typed later",
        ]
    said = [r.body["messages"][-1] for r in fake_llm.chat_requests()]
    texts = [
        m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in said
    ]
    assert texts == ["SLOW one", "queued message", "typed later"]
