"""Keys typed while the TUI starts keep their meaning.

Until Textual puts the terminal in raw mode (a second or more after `remecli` is started), the
terminal driver turns Enter (CR) into LF (`ICRNL`), and Textual later reads LF as Ctrl+J, the
prompt's "new line" key: a message typed and sent during start-up was not sent but merged with
the next one ("SLOW one" Enter, then "queued message" Enter → one message). `hold_enter()` turns
that translation (and the echo) off as early as the TUI is chosen, so an Enter typed from then on
arrives as Enter, and it takes the lines already sent with Enter before that out of the terminal:
the prompt sends them first (`take_lines()`). Telling such an LF from a real Ctrl+J by when
Textual read it is a race (its reader thread and the prompt's mount were ~10 ms apart, and a
clean-clone CI run lost it). `restore()` puts the user's terminal settings back after the app has
closed (Textual restores what it found: ours).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from typing import Any

_saved: list[Any] | None = None
_lines: list[str] = []  # sent with Enter before hold_enter(): the prompt sends them first
_CONTROL = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)?|[\x00-\x08\x0b-\x1f\x7f]")


def hold_enter() -> None:
    """Stop the terminal turning Enter into LF from now on (no-op without a terminal)."""
    global _saved
    try:
        import termios

        fd = sys.stdin.fileno()
        if not sys.stdin.isatty():
            return
        attributes = termios.tcgetattr(fd)
        if _saved is None:
            _saved = list(attributes)
        attributes[0] &= ~termios.ICRNL  # iflag: Enter stays CR
        attributes[3] &= ~termios.ECHO  # lflag: the keys show in the prompt, not under it
        termios.tcsetattr(fd, termios.TCSANOW, attributes)  # NOW: typed keys are kept
    except (ImportError, OSError, ValueError, AttributeError):
        return  # not a POSIX terminal: nothing to keep
    _lines.extend(_sent_lines(fd))


def _sent_lines(fd: int) -> list[str]:
    """The lines already sent with Enter. The terminal is still in line mode, where a read
    returns one finished line and nothing else is readable: a line still being typed stays for
    Textual (its Enter now arrives as Enter)."""
    import select

    lines: list[str] = []
    with contextlib.suppress(OSError, ValueError):
        for _ in range(1000):  # a bound, not a limit anyone types into a starting app
            if not select.select([fd], [], [], 0)[0]:
                break
            line = _CONTROL.sub("", os.read(fd, 4096).decode("utf-8", "replace")).strip()
            if line:  # an empty Enter sends nothing, as in the prompt; Ctrl+D reads as b""
                lines.append(line)
    return lines


def take_lines() -> list[str]:
    """The lines sent before the prompt existed (once; afterwards none)."""
    taken = _lines[:]
    _lines.clear()
    return taken


def restore() -> None:
    """Put back the terminal settings `hold_enter()` found."""
    global _saved
    if _saved is None:
        return
    with contextlib.suppress(ImportError, OSError, ValueError):
        import termios

        termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, _saved)
    _saved = None
