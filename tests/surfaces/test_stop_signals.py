"""A stdio server stops on the first SIGINT and flushes its memory; a second SIGINT while the
flush is still running stops it at once (it used to be swallowed until the flush ended)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SERVER = """
import asyncio, sys
from remecli.surfaces.serving import serve_until_stopped

class SlowFlush:  # a runtime whose close waits on long memory work (a slow summary)
    read_only = False

    async def start(self):
        pass
    async def close(self):
        print("flushing", file=sys.stderr, flush=True)
        await asyncio.sleep(120)

async def serve():
    print("serving", file=sys.stderr, flush=True)
    await asyncio.Event().wait()

asyncio.run(serve_until_stopped(SlowFlush(), serve))
"""


def _wait_for(process: subprocess.Popen, line: str, deadline: float = 30.0) -> None:
    assert process.stderr is not None
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if process.stderr.readline().strip() == line:
            return
    raise AssertionError(f"no {line!r} on stderr")


def test_second_sigint_during_the_flush_stops_at_once(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        _wait_for(process, "serving")
        process.send_signal(signal.SIGINT)
        _wait_for(process, "flushing")  # the first signal only ends the serving loop
        assert process.poll() is None
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) != 0  # interrupted: not the two-minute flush
    finally:
        process.kill()
        process.wait()
