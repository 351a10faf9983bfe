"""Start `remecli serve` / `remecli mcp --http` as real processes on 127.0.0.1 and talk to them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.cli_process import fake_llm_settings

START_DEADLINE = 60.0
_URL = re.compile(r"(http://127\.0\.0\.1:\d+)")


def surface_settings(working_dir: Path, base_url: str) -> list[str]:
    """key=value settings for a test server: fake LLM, keyword-only search, no watcher."""
    return [*fake_llm_settings(working_dir, base_url), "search.watch=false"]


@dataclass
class Surface:
    """A running server process, its base URL and everything it wrote to stderr."""

    process: subprocess.Popen
    url: str
    stderr: list[str] = field(default_factory=list)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60.0) -> int:
        """Send `sig` and wait for the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout)


def start_surface(
    args: list[str],
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    program: list[str] | None = None,
) -> Surface:
    """Run `python -m remecli ARGS` (or `program ARGS`) and wait (with a deadline) for its URL
    on stderr."""
    process = subprocess.Popen(
        [*(program or [sys.executable, "-m", "remecli"]), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    lines: list[str] = []
    found = threading.Event()

    def pump() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if _URL.search(line):
                found.set()

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + START_DEADLINE
    while not found.wait(0.05):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError("server did not start:\n" + "".join(lines))
    url = next(m.group(1) for line in lines if (m := _URL.search(line)))
    return Surface(process, url, lines)


def wait_until_healthy(url: str) -> None:
    """Poll GET /api/health until it answers (deadline START_DEADLINE)."""
    deadline = time.monotonic() + START_DEADLINE
    while True:
        try:
            if httpx.get(f"{url}/api/health", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{url} never became healthy")
        time.sleep(0.05)


def poll(predicate, what: str, deadline: float = 60.0):
    """Call `predicate` until it returns something truthy (or fail after `deadline` s)."""
    end = time.monotonic() + deadline
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
