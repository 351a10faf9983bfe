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

from remecli.conversation.full_output import FullOutputSpool
from remecli.tools._descendants import (
    MARKER_ENV,
    DescendantTracker,
    describe,
    enable_subreaper,
    keep_running,
    new_marker,
)
from remecli.tools._output import TailCollector, TailOutput

_READ_CHUNK = 65_536
_TERM_GRACE_S = 0.5  # SIGTERM first; SIGKILL whatever is left after this
_DRAIN_GRACE_S = 0.3  # after the main process exits, how long background children may hold the pipe
_EXIT_POLL_S = 0.05  # exit-status polling while the pipe is still open
_PIPE_GRACE_S = 1.0  # after the group is gone, how long to wait for the pipe to close
_DETACH_GRACE_S = 0.5  # how long a finished command's children get to detach (setsid)
_TRACK_POLL_S = 0.2  # how often the run's descendants are recorded

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
    left_running: str = ""  # detached background processes still running (setsid), described
    full_output: str = ""  # where the whole output is when the shown tail was cut ("" if not)


async def run_in_process_group(
    argv: Sequence[str],
    cwd: Path,
    timeout_s: float,
    max_bytes: int,
    max_lines: int,
    env: Mapping[str, str] | None = None,
    spool: FullOutputSpool | None = None,
) -> ProcessResult:
    """Run `argv` with stdout+stderr merged, in a new session; never leaves processes behind.

    On timeout, on cancellation and after a normal exit, every process still in the group is
    terminated (SIGTERM, then SIGKILL). Cancellation kills the group and re-raises. At a
    timeout or a cancellation, processes that left the group (setsid, setpgid) are killed
    too; after a normal exit they are the background servers the user asked for: they keep
    running, are listed in the result, and are stopped when remecli exits.
    """
    started = time.monotonic()
    enable_subreaper()
    marker = new_marker()
    proc = await _spawn(
        argv, cwd, {**os.environ, **_QUIET_ENV, **(env or {}), MARKER_ENV: marker}, spool
    )
    tracker = DescendantTracker(proc.pid, marker)
    collector = TailCollector(keep_bytes=max_bytes * 4)
    reader = asyncio.create_task(_pump(proc.stdout, collector, spool))
    try:
        timed_out, stopped_background, left_running = await _settle(
            proc, reader, tracker, started + timeout_s
        )
    except asyncio.CancelledError:
        reader.cancel()
        _abandon(tracker, spool)
        raise
    finally:
        if proc.returncode is None:
            _kill_group(proc.pid)
    output = collector.result(max_bytes, max_lines)
    full_output = ""
    if spool is not None and spool.finish(keep=output.truncated) is not None:
        full_output = spool.reference()
    return ProcessResult(
        output=output,
        full_output=full_output,
        exit_code=None if timed_out else proc.returncode,
        timed_out=timed_out,
        duration_s=time.monotonic() - started,
        stopped_background=stopped_background,
        left_running=left_running,
    )


async def _spawn(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], spool: FullOutputSpool | None
) -> asyncio.subprocess.Process:
    """Start `argv` as the leader of a new session, output merged into one pipe.

    A cancellation while it starts still waits for the process, then kills its group and its
    marked descendants before re-raising: the command may already be running.
    """
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            cwd=str(cwd),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            env=dict(env),
        )
    )
    try:
        return await asyncio.shield(spawn)
    except asyncio.CancelledError:  # cancelled while starting: the group may already run
        started_proc = await spawn
        _abandon(DescendantTracker(started_proc.pid, env[MARKER_ENV]), spool)
        raise


def _abandon(tracker: DescendantTracker, spool: FullOutputSpool | None) -> None:
    """On cancellation: kill the command's group and every marked descendant, drop the spool.

    The command leads its own process group (`start_new_session`), so its pid is the group's.
    """
    _kill_group(tracker.root_pid)
    tracker.kill_all()
    if spool is not None:
        spool.finish(keep=False)


async def _settle(
    proc: asyncio.subprocess.Process,
    reader: asyncio.Task[None],
    tracker: DescendantTracker,
    deadline: float,
) -> tuple[bool, bool, str]:
    """Wait for the command until `deadline`, then leave nothing of its group behind.

    Returns (timed out, background processes stopped, the detached processes left running).
    At a timeout the group and every marked descendant are killed; after a normal exit the
    processes that left the group keep running and are handed to `keep_running`.
    """
    timed_out = not await _wait_for_exit(proc, reader, deadline, tracker)
    if timed_out:
        await _terminate_group(proc.pid)
        await asyncio.to_thread(tracker.kill_all)
        await _wait_for_exit(proc, reader, time.monotonic() + _PIPE_GRACE_S)
    stopped_background = await _stop_group_leftovers(proc, reader, timed_out)
    if timed_out:
        return True, stopped_background, ""
    detached = await asyncio.to_thread(tracker.alive)
    keep_running(detached)
    return False, stopped_background, describe(detached)


async def _stop_group_leftovers(
    proc: asyncio.subprocess.Process, reader: asyncio.Task[None], timed_out: bool
) -> bool:
    """After the command ended: drain its pipe, stop what is left in its group, free the pipe.

    Returns True when background processes still in the group were stopped after a normal
    exit (at a timeout the group is being killed anyway, so that is not news).
    """
    pgid = proc.pid
    stopped_background = False
    if not reader.done():  # background children may still hold the pipe: let them flush
        await asyncio.wait({reader}, timeout=_DRAIN_GRACE_S)
    if not timed_out:  # a child on its way out of the group (`setsid cmd &`) may leave
        deadline = time.monotonic() + _DETACH_GRACE_S
        while _group_alive(pgid) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
    if _group_alive(pgid):
        stopped_background = not timed_out
        await _terminate_group(pgid)
    if not reader.done():
        await asyncio.wait({reader}, timeout=_PIPE_GRACE_S)
    if not reader.done():  # a detached process (setsid) still holds the pipe
        reader.cancel()
        _close_transport(proc)
    return stopped_background


async def _wait_for_exit(
    proc: asyncio.subprocess.Process,
    reader: asyncio.Task[None],
    deadline: float,
    tracker: DescendantTracker | None = None,
) -> bool:
    """Wait until the main process exits (True) or the deadline passes (False).

    `proc.wait()` alone also waits for the pipe to close, which a background child can hold
    open forever, so the exit status is polled while output is still streaming.
    """
    next_poll = 0.0
    while proc.returncode is None:
        if tracker is not None and time.monotonic() >= next_poll:
            await asyncio.to_thread(tracker.poll)  # remember children before they detach
            next_poll = time.monotonic() + _TRACK_POLL_S
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


async def _pump(
    stream: asyncio.StreamReader | None, collector: TailCollector, spool: FullOutputSpool | None
) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_READ_CHUNK):
        collector.feed(chunk)
        if spool is not None:
            spool.feed(chunk)


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
