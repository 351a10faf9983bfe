"""Running a child process in its own process group, killing the whole group when done."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from remecli.tools._output import TailCollector, TailOutput

_READ_CHUNK = 65_536
_TERM_GRACE_S = 0.5  # SIGTERM first; SIGKILL whatever is left after this
_DRAIN_GRACE_S = 0.3  # after the main process exits, how long background children may hold the pipe
_EXIT_POLL_S = 0.05  # exit-status polling while the pipe is still open
_PIPE_GRACE_S = 1.0  # after the group is gone, how long to wait for the pipe to close

# Keep tools non-interactive: no pagers, no colours, no prompts.
_QUIET_ENV = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "NO_COLOR": "1",
    "TERM": "dumb",
    "PYTHONUNBUFFERED": "1",
    "PYTHONIOENCODING": "utf-8",
}


@dataclass
class ProcessResult:
    """How a child process ended and what it printed."""

    output: TailOutput
    exit_code: int | None
    timed_out: bool
    duration_s: float
    stopped_background: bool  # processes left in the group after exit were stopped


async def run_in_process_group(
    argv: Sequence[str],
    cwd: Path,
    timeout_s: float,
    max_bytes: int,
    max_lines: int,
    env: Mapping[str, str] | None = None,
) -> ProcessResult:
    """Run `argv` with stdout+stderr merged, in a new session; never leaves processes behind.

    On timeout, on cancellation and after a normal exit, every process still in the group is
    terminated (SIGTERM, then SIGKILL). Cancellation kills the group and re-raises.
    """
    started = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, **_QUIET_ENV, **(env or {})},
    )
    pgid = proc.pid  # start_new_session: the child leads its own process group
    collector = TailCollector(keep_bytes=max_bytes * 4)
    reader = asyncio.create_task(_pump(proc.stdout, collector))
    timed_out = False
    stopped_background = False
    try:
        timed_out = not await _wait_for_exit(proc, reader, started + timeout_s)
        if timed_out:
            await _terminate_group(pgid)
            await _wait_for_exit(proc, reader, time.monotonic() + _PIPE_GRACE_S)
        if not reader.done():  # background children may still hold the pipe: let them flush
            await asyncio.wait({reader}, timeout=_DRAIN_GRACE_S)
        if _group_alive(pgid):
            stopped_background = not timed_out
            await _terminate_group(pgid)
        if not reader.done():
            await asyncio.wait({reader}, timeout=_PIPE_GRACE_S)
        if not reader.done():  # a detached process (setsid) still holds the pipe
            reader.cancel()
            _close_transport(proc)
    except asyncio.CancelledError:
        _kill_group(pgid)
        reader.cancel()
        raise
    finally:
        if proc.returncode is None:
            _kill_group(pgid)
    return ProcessResult(
        output=collector.result(max_bytes, max_lines),
        exit_code=None if timed_out else proc.returncode,
        timed_out=timed_out,
        duration_s=time.monotonic() - started,
        stopped_background=stopped_background,
    )


async def _wait_for_exit(
    proc: asyncio.subprocess.Process, reader: asyncio.Task[None], deadline: float
) -> bool:
    """Wait until the main process exits (True) or the deadline passes (False).

    `proc.wait()` alone also waits for the pipe to close, which a background child can hold
    open forever, so the exit status is polled while output is still streaming.
    """
    while proc.returncode is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        if reader.done():  # pipe closed: wait() no longer depends on it
            try:
                await asyncio.wait_for(proc.wait(), timeout=remaining)
            except TimeoutError:
                return False
            return True
        await asyncio.wait({reader}, timeout=min(_EXIT_POLL_S, remaining))
    return True


async def _pump(stream: asyncio.StreamReader | None, collector: TailCollector) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_READ_CHUNK):
        collector.feed(chunk)


def _close_transport(proc: asyncio.subprocess.Process) -> None:
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


def _group_alive(pgid: int) -> bool:
    """True while a process of the group is still running (zombies awaiting reaping do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed uid (setuid binary): still there
        return True
    for proc in psutil.process_iter(["status"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                return True
        except (ProcessLookupError, psutil.Error):
            continue
    return False


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


async def _terminate_group(pgid: int) -> None:
    """SIGTERM the group, wait up to the grace period, then SIGKILL what is left."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + _TERM_GRACE_S
    while time.monotonic() < deadline:
        if not _group_alive(pgid):
            return
        await asyncio.sleep(0.02)
    _kill_group(pgid)
