"""Children that leave the process group (setsid, setpgid, double fork) cannot escape."""

from __future__ import annotations

import asyncio
import re

import pytest

from remecli.tools._descendants import stop_left_running
from remecli.tools.bash import bash
from remecli.tools.execute_code import execute_code
from tests.tools.conftest import process_gone, wait_until_gone

_DAEMON = (
    "import os, sys, time\n"
    "if os.fork():\n"
    "    os._exit(0)\n"
    "os.setsid()\n"
    "if os.fork():\n"
    "    os._exit(0)\n"
    "print(os.getpid(), flush=True)\n"
    "time.sleep(1000)\n"
)


def _pids(text: str) -> list[int]:
    return [int(p) for p in re.findall(r"^(\d+)$", text, re.M)]


@pytest.mark.parametrize(
    "command",
    [
        "setsid sleep 1000 & echo $!; sleep 1000",
        "python3 -c 'import os, time; os.setpgid(0, 0); print(os.getpid(), flush=True); "
        "time.sleep(1000)' & sleep 1000",
    ],
    ids=["setsid", "setpgid"],
)
async def test_timeout_kills_children_that_left_the_group(ctx, command: str) -> None:
    result = await bash(ctx, command, timeout=1.5)
    text = result.text
    assert result.is_error and "Timed out" in text
    [pid] = _pids(text)
    assert await wait_until_gone(pid)


async def test_timeout_kills_a_double_forked_daemon(ctx) -> None:
    code = _DAEMON
    runner = f"import subprocess, sys, time\nsubprocess.run([sys.executable, '-c', {code!r}])\ntime.sleep(1000)\n"
    result = await execute_code(ctx, runner, timeout=2)
    [pid] = _pids(result.text)
    assert await wait_until_gone(pid)


async def test_cancel_kills_detached_children(ctx) -> None:
    pid_file = ctx.workspace / "pid"
    task = asyncio.create_task(bash(ctx, f"setsid sleep 1000 & echo $! > {pid_file}; sleep 1000"))
    for _ in range(250):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.02)
    pid = int(pid_file.read_text())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until_gone(pid)


async def test_a_background_server_the_user_asked_for_keeps_running_and_is_listed(ctx) -> None:
    result = await bash(ctx, "nohup setsid sleep 1000 > /dev/null 2>&1 & echo $!")
    text = result.text
    [pid] = _pids(text)
    try:
        assert not result.is_error and "Still running in the background" in text
        assert f"pid {pid}" in text and not process_gone(pid)
    finally:
        stop_left_running()  # what remecli does at exit
    assert await wait_until_gone(pid)
