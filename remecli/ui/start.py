"""`remecli` without a command: read the settings and start a front-end (`chat`). What every
front-end does with the settings before it starts (`prepare`): check them against the settings
model (and take a resumed conversation's model), make sure the memory folder can be written, set
up the log file, make the memory folder private. The TUI does this right after its first frame
(from `Pending`), the plain REPL and `-p` before they start. No click here: `remecli key=value …`
comes straight here from `__main__`."""

from __future__ import annotations

import sys
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


def chat(setting_args: list[str], prompt: str | None) -> int:
    """Read the settings and start a front-end: one answer (-p), the plain REPL, or the TUI.
    The TUI checks the settings right after its first frame (a problem ends it with the same
    line and exit code); the others before they start."""
    from remecli.config.errors import ConfigError
    from remecli.config.sources import read_sources
    from remecli.notes.log_redaction import install_log_redaction

    install_log_redaction()  # what it logs is redacted before it reaches a file (once is enough)
    try:
        sources = read_sources(setting_args)
        question = _question(prompt) if prompt is not None else None
    except (ConfigError, ValueError) as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 2
    if question is None and sources.raw("prompt") is None and _tui(sources.raw("ui")):
        return _run_tui(Pending(sources, lambda: prepare(sources, setting_args)))
    try:
        ready = prepare(sources, setting_args)
    except StartFailed as problem:
        print(f"remecli: {problem}", file=sys.stderr)
        return problem.code
    settings = ready.settings
    if question is not None:
        settings = settings.with_changes({"prompt": question})
    if ready.note:
        print(f"remecli: {ready.note}", file=sys.stderr)
    if settings.prompt is not None:
        from remecli.surfaces.process_end import nothing_left_but_exit
        from remecli.ui.plain import run_once

        code = run_once(settings, settings.prompt)
        nothing_left_but_exit()  # its runtime is closed
        return code
    if not _tui(settings.ui):
        from remecli.ui.plain import run_repl

        return run_repl(settings)
    return _run_tui(settings, log_file=ready.log_file)  # `prompt=null`: checked already


def _tui(ui: object) -> bool:
    """The TUI, unless `ui=plain` or the output is no terminal."""
    return ui != "plain" and sys.stdout.isatty()


def _run_tui(settings: Settings | Pending, log_file: Path | None = None) -> int:
    """The TUI, on settings checked or still to check (`Pending`: after the first frame)."""
    from remecli.ui.tui import collector_pauses
    from remecli.ui.tui.early_keys import hold_enter

    hold_enter()  # before the slow imports: Enter typed meanwhile still sends
    collector_pauses.hold()  # until the session started (run_tui lets go if it never does)
    from remecli.ui.tui.app import run_tui

    return run_tui(settings, log_file=log_file)


def _question(prompt: str) -> str:
    """`-p -` reads the question from stdin (a pipe or a file, not the terminal)."""
    if prompt != "-":
        if not prompt.strip():
            raise ValueError('-p got an empty question: remecli -p "what is in MEMORY.md?"')
        return prompt
    if sys.stdin is None or sys.stdin.isatty():
        raise ValueError('-p - reads the question from stdin: pipe it in (echo "…" | remecli -p -)')
    question = sys.stdin.read().strip()
    if not question:
        raise ValueError("-p - got an empty question on stdin")
    return question
