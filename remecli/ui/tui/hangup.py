"""A closed terminal (SIGHUP: tmux window closed, SSH dropped) ends remecli within seconds.

The handler is a plain signal handler, so it runs in the main thread even while that thread is
stuck handing output to Textual's writer thread (which died on the dead terminal, so its queue
never drains again). It points stdin/stdout/stderr at /dev/null (no write blocks or fails any
more) and asks the event loop for the orderly save (`on_hangup`: summaries finish). A watchdog
thread leaves at once when the loop stops answering for `stuck_s` (it is blocked: nothing more
will be saved), and after `limit_s` in any case: a summary still running stays in
`sessions/pending/`, and the next start finishes it (the record's lock goes with the process).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType

STUCK_S = 5.0  # the event loop silent this long: leave now
LIMIT_S = 10.0  # the orderly save (summaries finishing) may take this long at most

log = logging.getLogger(__name__)


def install(
    loop: asyncio.AbstractEventLoop,
    on_hangup: Callable[[], None],
    stuck_s: float = STUCK_S,
    limit_s: float = LIMIT_S,
) -> None:
    """Handle SIGHUP as described above (call from the main thread)."""
    started = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        if started.is_set():
            return
        started.set()
        _silence_terminal()
        threading.Thread(
            target=_watch, args=(loop, stuck_s, limit_s), daemon=True, name="remecli-hangup"
        ).start()
        with contextlib.suppress(RuntimeError):  # the loop may already be closed
            loop.call_soon_threadsafe(on_hangup)

    signal.signal(signal.SIGHUP, handler)


def _watch(loop: asyncio.AbstractEventLoop, stuck_s: float, limit_s: float) -> None:
    """Leave when the loop has not run a callback for `stuck_s`, or after `limit_s`."""
    start = time.monotonic()
    beat = [start]

    def alive() -> None:
        beat[0] = time.monotonic()

    while True:
        now = time.monotonic()
        if now - beat[0] > stuck_s:
            _leave("the event loop is stuck")
        if now - start > limit_s:
            _leave(f"saving took over {limit_s:.0f} s")
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(alive)
        time.sleep(0.25)


def _silence_terminal() -> None:
    """stdin, stdout and stderr on /dev/null: the terminal is gone."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            with contextlib.suppress(OSError):
                os.dup2(devnull, fd)
        os.close(devnull)


def _leave(why: str) -> None:
    log.warning("terminal closed and %s: leaving now; unfinished memory work stays pending", why)
    logging.shutdown()
    os._exit(0)
