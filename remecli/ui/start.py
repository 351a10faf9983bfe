"""What every front-end does with the settings before it starts: check them against the settings
model (and take a resumed conversation's model), make sure the memory folder can be written, set
up the log file, make the memory folder private. The TUI does this right after its first frame
(from `Pending`), the plain REPL and `-p` before they start."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from remecli.config.settings import Settings
    from remecli.config.sources import Sources


class StartFailed(Exception):
    """A setting or the memory folder stops the start: one line for the user (what to change)
    and the exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Ready:
    """Checked settings, the log file they set up, and a note for the user (or "")."""

    settings: Settings
    log_file: Path | None
    note: str


def prepare(sources: Sources, setting_args: Sequence[str]) -> Ready:
    """Validate `sources` and get the memory folder ready; StartFailed with the user's line."""
    from remecli.config.errors import ConfigError
    from remecli.config.loader import settle
    from remecli.config.logs import WorkingDirUnusable, check_writable, setup_logging
    from remecli.config.privacy import tighten_working_dir

    try:
        settings = settle(sources)[0]
        if settings.resume:  # the model and endpoint the conversation was held with
            from remecli.conversation.started_with import with_resumed_settings

            settings = with_resumed_settings(settings, list(setting_args))
    except (ConfigError, ValueError) as exc:
        raise StartFailed(str(exc)) from None
    try:
        root = check_writable(settings)
    except WorkingDirUnusable as exc:
        raise StartFailed(str(exc)) from None
    log_file = setup_logging(settings)
    return Ready(settings, log_file, tighten_working_dir(root) or "")


@dataclass(frozen=True)
class Pending:
    """Settings read but not yet checked (the TUI paints its first frame from these: its theme
    and memory folder) and how to check them, run right after that frame."""

    sources: Sources
    prepare: Callable[[], Ready]

    @property
    def working_dir(self) -> Path:
        return self.sources.memory.root

    @property
    def theme(self) -> str | None:
        """The theme named (None: the default); a value that is no name is validation's to report."""
        theme = self.sources.raw("theme")
        return theme if isinstance(theme, str) else None
