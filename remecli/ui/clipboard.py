"""Copying for the front-ends, and what can honestly be said about it afterwards.

A terminal app reaches the system clipboard only by asking the terminal (OSC 52), and no
terminal answers: the app cannot know whether anything was copied. Inside tmux the request is
dropped unless tmux's `set-clipboard` is `on` (the default, `external`, ignores it), so there
the text also goes into tmux's own paste buffer (`tmux load-buffer -w`: tmux then passes it on
to the system clipboard when the terminal around it accepts OSC 52), which is known to work.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections.abc import Mapping

log = logging.getLogger(__name__)

TMUX_TIMEOUT_S = 2.0


def sized(what: str, text: str) -> str:
    """`what` with the size of `text`: "code block 1 (1 line, 9 characters)"."""
    lines = text.count("\n") + 1
    return f"{what} ({lines} line{'s' if lines > 1 else ''}, {len(text):,} characters)"


def copied_line(text: str, what: str, environ: Mapping[str, str] | None = None) -> str:
    """Put `text` in tmux's paste buffer when inside tmux (OSC 52 is the caller's part) and
    say truthfully where `text` went, naming it `what` ("the last answer", "8 characters")."""
    env = os.environ if environ is None else environ
    if env.get("TMUX") and _tmux_buffer(text, env):
        return (
            f"Copied {what} into tmux's paste buffer (prefix then ] pastes it); the system "
            "clipboard gets it too if the terminal around tmux accepts OSC 52."
        )
    return (
        f"Sent {what} to the clipboard through the terminal (OSC 52); if nothing arrives, "
        "your terminal ignores OSC 52: select the text with Shift+drag instead."
    )


def _tmux_buffer(text: str, environ: Mapping[str, str]) -> bool:
    """True if tmux took `text` into its paste buffer."""
    tmux = shutil.which("tmux", path=environ.get("PATH"))
    if tmux is None:
        return False
    try:
        done = subprocess.run(
            [tmux, "load-buffer", "-w", "-"],
            input=text.encode(),
            env=dict(environ),
            capture_output=True,
            timeout=TMUX_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("tmux load-buffer failed: %s", exc)
        return False
    if done.returncode != 0:
        log.warning("tmux load-buffer failed: %s", done.stderr.decode(errors="replace").strip())
    return done.returncode == 0
