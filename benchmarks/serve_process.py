"""A real `remecli serve` (or `remecli mcp --http`) process for the benchmarks that measure one:
started from this checkout on a free port, its URL read from what it announces, stopped after."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
URL = re.compile(r"(http://127\.0\.0\.1:\d+)")
START_SECONDS = 120.0


@contextlib.contextmanager
def served(
    args: list[str], workdir: Path, settings: list[str]
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`python -m remecli ARGS working_dir=WORKDIR SETTINGS` running: (the process, its URL);
    terminated (and waited for) on leaving."""
    proc = start(args, workdir, settings)
    try:
        yield proc, url_of(proc, args)
    finally:
        proc.terminate()
        proc.wait(60)


def start(args: list[str], workdir: Path, settings: list[str]) -> subprocess.Popen[str]:
    """Start `python -m remecli ARGS` on `workdir` with this checkout's `remecli` imported."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    return subprocess.Popen(
        [sys.executable, "-m", "remecli", *args, f"working_dir={workdir}", *settings],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def url_of(proc: subprocess.Popen[str], args: list[str]) -> str:
    """The URL `proc` announces on stderr (which is drained from then on so it never blocks)."""
    assert proc.stderr is not None
    deadline = time.monotonic() + START_SECONDS
    for line in proc.stderr:
        if found := URL.search(line):
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return found.group(1)
        if time.monotonic() > deadline:
            break
    raise SystemExit(f"remecli {' '.join(args)} did not start")


def wait_for_index(url: str, token: str, give_up: float, poll: float) -> float:
    """Seconds until the server says its index is open (searches no longer wait for it), asked
    every `poll` seconds (each ask is work for the server)."""
    start_time = time.monotonic()
    headers = {"authorization": f"Bearer {token}"}
    while time.monotonic() - start_time < give_up:
        with contextlib.suppress(httpx.HTTPError):
            answer = httpx.post(f"{url}/api/memory_status", json={}, headers=headers, timeout=600)
            if answer.status_code == 200 and answer.json()["index_state"] == "ready":
                return time.monotonic() - start_time
        time.sleep(poll)
    raise SystemExit(f"{url} never opened its index")


def rss_mb(proc: subprocess.Popen[str]) -> float:
    """The process's resident memory in MB."""
    return float(psutil.Process(proc.pid).memory_info().rss / 1e6)
