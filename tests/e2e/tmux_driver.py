"""Drive a real terminal: run a command in a detached tmux session, send keys, read the screen."""

from __future__ import annotations

import shlex
import shutil
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

    def kill(self) -> None:
        """End the session."""
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def tmux_available() -> bool:
    """True if tmux is installed."""
    return shutil.which("tmux") is not None
