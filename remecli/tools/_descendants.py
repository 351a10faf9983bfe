"""Every process a tool run started, also those that left its process group (setsid, setpgid).

Three nets, so a child that detaches is still found: the process that runs tools becomes a
child subreaper (Linux `PR_SET_CHILD_SUBREAPER`), so orphans re-parent to it instead of init;
the run's descendants are recorded while it runs; and every process carries a marker in its
environment (`REMECLI_TOOL_RUN=<id>`), which detached processes inherit.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import logging
import os
import signal
import sys
import uuid

import psutil

log = logging.getLogger(__name__)

MARKER_ENV = "REMECLI_TOOL_RUN"
_PR_SET_CHILD_SUBREAPER = 36
_left_running: dict[int, float] = {}  # pid -> create_time of background processes kept alive


@functools.cache
def enable_subreaper() -> bool:
    """Make this process adopt orphaned descendants (Linux only; once; False if unavailable)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        done = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
    if done:
        atexit.register(stop_left_running)
    return bool(done)


def new_marker() -> str:
    """A fresh run id for `MARKER_ENV`."""
    return uuid.uuid4().hex


class DescendantTracker:
    """The processes of one tool run: recorded while it runs, found again by marker at the end."""

    def __init__(self, root_pid: int, marker: str) -> None:
        self.root_pid = root_pid
        self.marker = marker
        self._seen: dict[int, float] = {}

    def poll(self) -> None:
        """Record the current descendants of the run's root process."""
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(self.root_pid).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    self._seen.setdefault(child.pid, child.create_time())

    def alive(self) -> list[psutil.Process]:
        """Processes of this run still running (zombies excluded), the root included."""
        self.poll()
        found: dict[int, psutil.Process] = {}
        for pid, created in self._seen.items():
            with contextlib.suppress(psutil.Error):
                proc = psutil.Process(pid)
                if proc.create_time() == created:
                    found[pid] = proc
        for proc in psutil.process_iter():
            if proc.pid in found or proc.pid == os.getpid():
                continue
            with contextlib.suppress(psutil.Error):
                if proc.environ().get(MARKER_ENV) == self.marker:
                    found[proc.pid] = proc
        return [p for p in found.values() if _running(p)]

    def kill_all(self) -> int:
        """SIGKILL every process of this run that is still running; how many were killed."""
        victims = self.alive()
        for proc in victims:
            with contextlib.suppress(psutil.Error):
                proc.send_signal(signal.SIGKILL)
        _reap([p.pid for p in victims if p.pid != self.root_pid])
        return len(victims)


def keep_running(processes: list[psutil.Process]) -> None:
    """Remember background processes the user kept (stopped when remecli exits)."""
    for proc in processes:
        with contextlib.suppress(psutil.Error):
            _left_running[proc.pid] = proc.create_time()


def stop_left_running() -> None:
    """Kill the background processes tool runs left running (called at exit)."""
    for pid, created in list(_left_running.items()):
        with contextlib.suppress(psutil.Error):
            proc = psutil.Process(pid)
            if proc.create_time() == created:
                proc.kill()
    _reap(list(_left_running))
    _left_running.clear()


def _reap(pids: list[int]) -> None:
    """Collect the exit status of killed orphans this subreaper adopted (no zombies left).

    Only adopted processes: the ones asyncio started are reaped by asyncio itself.
    """
    me = os.getpid()
    for pid in pids:
        with contextlib.suppress(psutil.Error, ChildProcessError, OSError):
            if psutil.Process(pid).ppid() == me:
                os.waitpid(pid, 0)


def describe(processes: list[psutil.Process]) -> str:
    """`pid 12 (python -m http.server), …` for a status line."""
    parts = []
    for proc in processes[:5]:
        with contextlib.suppress(psutil.Error):
            command = " ".join(proc.cmdline())[:60] or proc.name()
            parts.append(f"pid {proc.pid} ({command})")
    more = f", and {len(processes) - 5} more" if len(processes) > 5 else ""
    return ", ".join(parts) + more


def _running(proc: psutil.Process) -> bool:
    try:
        return bool(proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def log_left_running(processes: list[psutil.Process]) -> None:
    """Log what stays running in the background after a tool run."""
    if processes:
        log.info("left running in the background: %s", describe(processes))
