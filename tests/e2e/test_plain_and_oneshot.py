"""One-shot `-p` through a subprocess, and the plain REPL through a pty: same core, other front-ends."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from remecli.knowledge.summary.summarizer import NOTHING_MARKER


def base_args(fake_llm, tmp_path: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "remecli",
        "config=cli",
        f"llm.base_url={fake_llm.base_url}",
        "llm.model_name=fake-model",
        f"working_dir={tmp_path / '.reme'}",
    ]


@pytest.fixture(autouse=True)
def quiet_summarizer(fake_llm) -> None:
    """After the scripted answers, the memory summarizer finds nothing worth storing."""
    fake_llm.set_fallback(NOTHING_MARKER)


def env() -> dict[str, str]:
    return {**os.environ, "REME_LLM_API_KEY": "sk-test"}


def run(fake_llm, tmp_path: Path, *args: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """`remecli ARGS` against the fake LLM, run to its end in `tmp_path`; output captured."""
    command = [*base_args(fake_llm, tmp_path), *args]
    return subprocess.run(
        command, cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=90, **options
    )


def test_one_shot_prints_answer_to_stdout(fake_llm, tmp_path: Path) -> None:
    fake_llm.add_text("Paris is the capital of France.", chunk_size=4)
    proc = run(fake_llm, tmp_path, "-p", "Capital of France?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Paris is the capital of France."


def test_one_shot_prompt_setting_and_error_exit_code(fake_llm, tmp_path: Path) -> None:
    fake_llm.add_error(401, "bad key", code="invalid_api_key")
    proc = run(fake_llm, tmp_path, "prompt=hello")
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "REME_LLM_API_KEY" in proc.stderr and "Traceback" not in proc.stderr


def test_one_shot_reads_in_a_pipe(fake_llm, tmp_path: Path) -> None:
    fake_llm.add_text("ok")
    proc = run(fake_llm, tmp_path, "-p", "hi", stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and proc.stdout == "ok\n"


class Pty:
    """A child process on a pseudo-terminal, with a reader that collects its output."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child
            os.chdir(cwd)
            # PYTHONFAULTHANDLER: a child that does not exit dumps every thread's stack (wait)
            os.execvpe(args[0], args, {**env(), "TERM": "dumb", "PYTHONFAULTHANDLER": "1"})
        self.output = b""
        self.cwd = cwd

    def read_until(self, needle: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while needle.encode() not in self.output:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{needle!r} not seen; output:\n{self.output.decode(errors='replace')}"
                )
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.output += os.read(self.fd, 65536)
                except OSError:
                    break
        return self.output.decode(errors="replace")

    def write(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def wait(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.read_until("\x00", timeout=0.3)
            except AssertionError:
                pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, signal.SIGABRT)  # the faulthandler prints where each thread waits
        with contextlib.suppress(AssertionError):
            self.read_until("\x00", timeout=3)
        os.kill(self.pid, signal.SIGKILL)
        logs = "".join(
            log.read_text(errors="replace")[-4000:] for log in self.cwd.glob(".reme/logs/*.log")
        )
        screen = self.output.decode(errors="replace")[-8000:]
        raise AssertionError(f"plain REPL did not exit; output:\n{screen}\nlog:\n{logs}")


def test_plain_repl_answers_and_runs_slash_commands(fake_llm, tmp_path: Path) -> None:
    fake_llm.add_text("Hello from the plain REPL.")
    term = Pty([*base_args(fake_llm, tmp_path), "ui=plain"], tmp_path)
    term.read_until("/help for commands")
    term.write("hi there\r")
    term.read_until("Hello from the plain REPL.")
    term.write("/help\r")
    term.read_until("/compact")
    term.write("/history\r")
    term.read_until("hi there")
    term.write("/exit\r")
    assert term.wait() == 0


def test_plain_repl_asks_approval_once_per_call(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build"})])
    fake_llm.add_text("Left it alone.")
    term = Pty(
        [*base_args(fake_llm, tmp_path), "ui=plain", f"tools.workspace={tmp_path}"], tmp_path
    )
    term.read_until("/help for commands")
    term.write("clean up\r")
    term.read_until("[a]lways:")
    term.write("n\r")
    out = term.read_until("Left it alone.")
    term.write("/exit\r")
    assert term.wait() == 0
    assert out.count("⚙ bash") == 1 and "needs your approval" in out
    assert (tmp_path / "build").exists()
