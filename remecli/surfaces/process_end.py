"""Whether the command that ran has closed everything it started: a one-shot answer (`-p`) or a
server, once its memory runtime is closed. Then nothing is left but the exit, and
`remecli.__main__` ends the process without tearing the interpreter down (`leave_now`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ProcessEnd:
    """Set by the command that closed its runtime; read once, when the command has returned."""

    nothing_left: bool = False


PROCESS_END = ProcessEnd()


def nothing_left_but_exit() -> None:
    """The runtime is closed: the rest of the process is its exit."""
    PROCESS_END.nothing_left = True
