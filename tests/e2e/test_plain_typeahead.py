"""Issue 21, items 7 and 13 in the plain REPL (a real pseudo-terminal): Ctrl+C says "Reply
cancelled." once, type-ahead is not echoed into the answer but waits at the next prompt, and the
exit says how to resume the conversation."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from tests.e2e.test_plain_and_oneshot import Pty, base_args
from tests.fakes.messages import content_text


@contextlib.contextmanager
def plain_repl(args: list[str], cwd: Path) -> Iterator[Pty]:
    """The plain REPL in a pty, past its welcome line; killed afterwards whatever happened (a
    failed step leaves no REPL running)."""
    term = Pty(args, cwd)
    try:
        term.read_until("/help for commands")
        yield term
    finally:
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(term.pid, signal.SIGKILL)
            os.waitpid(term.pid, 0)


def test_ctrl_c_cancels_once_and_type_ahead_waits_for_the_prompt(fake_llm, tmp_path) -> None:
    fake_llm.add_text("slow " * 600, chunk_size=5, chunk_delay=0.05)
    fake_llm.add_text("Second answer.")
    with plain_repl(
        [*base_args(fake_llm, tmp_path), "ui=plain", "memory.summarize=false"], tmp_path
    ) as term:
        term.write("talk\r")
        term.read_until("slow slow")
        term.write("typed ahead")
        time.sleep(0.5)
        term.write("\x03")  # Ctrl+C: cancel the reply
        out = term.read_until("› typed ahead")  # the type-ahead is in the next prompt
        answer = out[out.index("slow slow") : out.index("Reply cancelled.")]
        assert "typed ahead" not in answer and "^C" not in answer  # not echoed into the answer
        time.sleep(1.0)
        term.write("\r")
        out = term.read_until("Second answer.")
        assert out.count("Reply cancelled.") == 1
        term.write("/exit\r")
        assert term.wait() == 0
        assert "To continue this conversation: remecli resume=" in term.output.decode(
            errors="replace"
        )
    said = [content_text(r.body["messages"][-1]) for r in fake_llm.chat_requests()]
    assert said[-1] == "typed ahead"


def test_ctrl_c_at_an_approval_cancels_at_once_and_the_next_line_is_a_message(
    fake_llm, tmp_path
) -> None:
    (tmp_path / "build").mkdir()
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build"})])
    fake_llm.add_text("Second answer.")
    args = [*base_args(fake_llm, tmp_path), "ui=plain", "memory.summarize=false"]
    with plain_repl([*args, f"tools.workspace={tmp_path}"], tmp_path) as term:
        term.write("clean up\r")
        term.read_until("[a]lways:")
        term.write("\x03")  # Ctrl+C at the question: deny it and cancel the reply, now
        term.read_until("Reply cancelled.", timeout=20)  # before: nothing until Enter
        term.read_until("› ", timeout=20)
        term.write("next\r")  # goes to the model, not to a question no longer asked
        term.read_until("Second answer.")
        term.write("/exit\r")
        assert term.wait() == 0
    assert (tmp_path / "build").exists()
    said = [content_text(r.body["messages"][-1]) for r in fake_llm.chat_requests()]
    assert said[-1].startswith("next")


def _at_prompt(term, after: str) -> str:
    """The output once the prompt is back after `after` (Pty.read_until stops quietly when the
    child has exited: say so instead)."""
    out = term.read_until(after)
    assert after in out, f"{after!r} not seen (the REPL exited?): {out!r}"
    deadline = time.monotonic() + 20
    while not out[out.index(after) :].rstrip().endswith("›"):
        assert time.monotonic() < deadline, f"no prompt after {after!r}: {out!r}"
        with contextlib.suppress(AssertionError):
            term.read_until("\x00", timeout=0.3)  # reads what came meanwhile
        out = term.output.decode(errors="replace")
    return out


def test_one_ctrl_c_at_the_prompt_does_not_quit_two_do(fake_llm, tmp_path) -> None:
    fake_llm.add_text("First answer.")
    fake_llm.add_text("Still here.")
    with plain_repl(
        [*base_args(fake_llm, tmp_path), "ui=plain", "memory.summarize=false"], tmp_path
    ) as term:
        term.write("hello\r")
        _at_prompt(term, "First answer.")
        term.write("\x03")  # late, for a reply that already ended: before, this quit
        _at_prompt(term, "Press Ctrl+C again to quit")
        time.sleep(2.5)  # past the window: the next Ctrl+C would warn again, not quit
        term.write("more\r")
        _at_prompt(term, "Still here.")
        term.write("\x03")
        time.sleep(0.3)
        term.write("\x03")
        assert term.wait() == 0
    out = term.output.decode(errors="replace")
    assert "Saving this conversation" not in out[: out.index("Still here.")]
    assert "To continue this conversation" in out


def test_ctrl_c_closes_the_session_picker(fake_llm, tmp_path) -> None:
    fake_llm.add_text("First answer.")
    fake_llm.add_text("Second answer.")
    with plain_repl(
        [*base_args(fake_llm, tmp_path), "ui=plain", "memory.summarize=false"], tmp_path
    ) as term:
        term.write("hello\r")
        _at_prompt(term, "First answer.")
        term.write("/new\r")
        _at_prompt(term, "New conversation")
        term.write("/resume\r")
        term.read_until("resume which")
        term.write("\x03")  # before: nothing until Enter
        _at_prompt(term, "resume which")
        term.write("more\r")
        _at_prompt(term, "Second answer.")
        term.write("/exit\r")
        assert term.wait() == 0
    said = [content_text(r.body["messages"][-1]) for r in fake_llm.chat_requests()]
    assert said[-1] == "more" and "Resumed conversation" not in term.output.decode()
