"""Keys typed while the TUI starts keep their meaning.

Until Textual puts the terminal in raw mode (a second or more after `remecli` is started), the
terminal driver turns Enter (CR) into LF (`ICRNL`), and Textual later reads LF as Ctrl+J, the
prompt's "new line" key: a message typed and sent during start-up was not sent but merged with
the next one ("SLOW one" Enter, then "queued message" Enter → one message). `hold_enter()` turns
that translation (and the echo) off as early as the TUI is chosen, so an early Enter arrives as
Enter; `restore()` puts the user's terminal settings back after the app has closed (Textual
restores what it found: ours). What was typed even earlier arrives as LF: the prompt takes a
Ctrl+J read before it existed for Enter (`ChatInput`).
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

_saved: list[Any] | None = None


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


def restore() -> None:
    """Put back the terminal settings `hold_enter()` found."""
    global _saved
    if _saved is None:
        return
    with contextlib.suppress(ImportError, OSError, ValueError):
        import termios

        termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, _saved)
    _saved = None
