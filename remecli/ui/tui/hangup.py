"""A closed terminal (SIGHUP: tmux window closed, SSH dropped) ends remecli within seconds.

The handler is a plain signal handler, so it runs in the main thread even while that thread is
stuck handing output to Textual's writer thread (which died on the dead terminal, so its queue
never drains again). It points stdin/stdout/stderr at /dev/null (no write blocks or fails any
more), asks the event loop for the orderly save (`on_hangup`), and leaves after `grace_s`
whatever happened: a summary still running stays in `sessions/pending/`, and the next start
finishes it (the record's lock goes with the process).
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

HANGUP_GRACE_S = 5.0

log = logging.getLogger(__name__)


def install(
    loop: asyncio.AbstractEventLoop, on_hangup: Callable[[], None], grace_s: float = HANGUP_GRACE_S
) -> None:
    """Handle SIGHUP as described above (call from the main thread)."""
    started = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        if started.is_set():
            return
        started.set()
        _silence_terminal()
        threading.Thread(
            target=_leave_after, args=(grace_s,), daemon=True, name="remecli-hangup"
        ).start()
        with contextlib.suppress(RuntimeError):  # the loop may already be closed
            loop.call_soon_threadsafe(on_hangup)

    signal.signal(signal.SIGHUP, handler)


def _silence_terminal() -> None:
    """stdin, stdout and stderr on /dev/null: the terminal is gone."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            with contextlib.suppress(OSError):
                os.dup2(devnull, fd)
        os.close(devnull)


def _leave_after(grace_s: float) -> None:
    time.sleep(grace_s)
    log.warning("terminal closed: leaving now; unfinished memory work stays pending")
    logging.shutdown()
    os._exit(0)
