"""Keys typed while the plain REPL prints a reply: not echoed into the answer, kept for the prompt.

The terminal echoes what is typed at once, so type-ahead landed in the middle of the streamed
answer ("slow slow typed aheadslow slow …", and `^C`). `typing_hidden()` turns the echo off while
a reply prints (and the flush of typed keys that Ctrl+C does); the keys wait in the terminal and
prompt-toolkit shows them at the next prompt.
A question asked meanwhile (approval, session picker) turns the echo back on with
`typing_shown()`, so the answer can be seen as it is typed.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO


def _attributes(stream: TextIO) -> tuple[int, list[Any]] | None:
    try:
        import termios

        if not stream.isatty():
            return None
        fd = stream.fileno()
        return fd, termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError, AttributeError):
        return None


@contextlib.contextmanager
def _echo(on: bool, stream: TextIO | None = None) -> Iterator[None]:
    found = _attributes(stream or sys.stdin)
    if found is None:
        yield
        return
    import termios

    fd, before = found
    changed = list(before)
    if on:
        changed[3] |= termios.ECHO  # lflag
    else:  # no echo; and Ctrl+C (cancel the reply) does not flush what was typed ahead
        changed[3] = (changed[3] & ~termios.ECHO) | termios.NOFLSH
    with contextlib.suppress(OSError, termios.error):
        termios.tcsetattr(fd, termios.TCSANOW, changed)  # NOW: what was typed stays
    try:
        yield
    finally:
        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, before)


def typing_hidden(stream: TextIO | None = None) -> contextlib.AbstractContextManager[None]:
    """Keys typed meanwhile are not echoed (they wait for the next prompt)."""
    return _echo(False, stream)


def typing_shown(stream: TextIO | None = None) -> contextlib.AbstractContextManager[None]:
    """Keys typed meanwhile are echoed (a question is being answered)."""
    return _echo(True, stream)
