"""Issue 37, item 6 in the plain REPL: `/copy` says truthfully where the text went, as the TUI
does. Inside tmux (whose default drops an app's OSC 52) the text goes into tmux's paste buffer,
checked on a real private tmux server; elsewhere the line says it was sent by OSC 52."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.e2e.test_plain_and_oneshot import Pty, base_args
from tests.ui.test_copy_truth import tmux_server  # noqa: F401  (the fixture)

ANSWER = "First answer:\n\n```sh\nmake ship\n```\n"


def _copy_in_plain_repl(fake_llm, tmp_path: Path, command: str, needle: str) -> str:
    fake_llm.add_text(ANSWER)
    term = Pty([*base_args(fake_llm, tmp_path), "ui=plain", "memory.summarize=false"], tmp_path)
    term.read_until("/help for commands")
    term.write("how do I ship?\r")
    term.read_until("First answer")
    term.write(f"{command}\r")
    out = term.read_until(needle)
    term.write("/exit\r")
    assert term.wait() == 0
    return out


def test_plain_copy_inside_tmux_fills_its_paste_buffer_and_says_so(
    fake_llm,
    tmp_path: Path,
    tmux_server: Path,  # noqa: F811
) -> None:
    out = _copy_in_plain_repl(fake_llm, tmp_path, "/copy 1", "prefix then ]")
    buffer = subprocess.run(
        ["tmux", "-S", str(tmux_server), "show-buffer"], capture_output=True, text=True
    )
    assert buffer.stdout == "make ship"
    said = " ".join(out.split())  # the line may wrap on the pty
    assert "Copied code block 1 (1 line, 9 characters) into tmux's paste buffer" in said
    assert "to the clipboard (OSC 52)" not in said


def test_plain_copy_outside_tmux_says_it_was_sent_not_that_it_arrived(
    fake_llm, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    out = _copy_in_plain_repl(fake_llm, tmp_path, "/copy", "Shift+drag")
    said = " ".join(out.split())
    assert (
        "Sent the last answer (" in said
        and "to the clipboard through the terminal (OSC 52)" in said
    )
    assert "Copied" not in said
