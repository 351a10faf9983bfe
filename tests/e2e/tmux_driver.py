"""Drive a real terminal: run a command in a detached tmux session, send keys, read the screen."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path


class TmuxSession:
    """One detached tmux session running `command` at a fixed size."""

    def __init__(
        self,
        command: list[str],
        *,
        cwd: Path,
        env: dict[str, str],
        width: int = 110,
        height: int = 32,
    ):
        self.name = f"remecli-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        shell = (
            f"cd {shlex.quote(str(cwd))} && env {exports} {shlex.join(command)}; "
            "echo REMECLI-EXITED=$?; sleep 60"
        )
        subprocess.run(
            [
                "tmux",
                "new-session",
                "-d",
                "-s",
                self.name,
                "-x",
                str(width),
                "-y",
                str(height),
                shell,
            ],
            check=True,
        )
        pane = subprocess.run(
            ["tmux", "display-message", "-p", "-t", self.name, "#{pane_pid}"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        self.pane_pid = int(pane) if pane.isdigit() else None

    def screen(self) -> str:
        """The visible pane text."""
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
        ).stdout

    def send(self, *keys: str, literal: bool = False) -> None:
        """Send keys (tmux key names, or literal text)."""
        args = ["tmux", "send-keys", "-t", self.name] + (["-l"] if literal else []) + list(keys)
        subprocess.run(args, check=True)

    def type(self, text: str) -> None:
        """Type text, then Enter."""
        self.send(text, literal=True)
        self.send("Enter")

    def wait_for(self, needle: str, timeout: float = 30.0) -> str:
        """Poll the screen until `needle` shows; fail with the last screen if it never does."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if needle in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{needle!r} did not appear within {timeout}s; screen was:\n{screen}")

    def wait_gone(self, needle: str, timeout: float = 30.0) -> None:
        """Poll until `needle` is no longer on screen."""
        deadline = time.monotonic() + timeout
        while needle in self.screen():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{needle!r} still on screen after {timeout}s:\n{self.screen()}"
                )
            time.sleep(0.2)

    def alive(self) -> bool:
        """True while the session exists."""
        return (
            subprocess.run(["tmux", "has-session", "-t", self.name], capture_output=True).returncode
            == 0
        )

    def close(self) -> None:
        """Close the terminal (the pane's processes get SIGHUP), nothing more."""
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)

    def kill(self) -> None:
        """Close the terminal, then end every process started in its pane that outlived it: a
        program left running would load the machine for the rest of the suite."""
        self.close()
        if self.pane_pid is None:
            return
        deadline = time.monotonic() + 5.0
        while (left := _processes_of_session(self.pane_pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _processes_of_session(sid: int) -> list[int]:
    """Pids of the live processes whose session id is `sid` (the pane's shell started it)."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,sid=,stat="], capture_output=True, text=True)
    found = []
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == str(sid) and not parts[2].startswith("Z"):
            found.append(int(parts[0]))
    return found


def tmux_available() -> bool:
    """True if tmux is installed."""
    return shutil.which("tmux") is not None
