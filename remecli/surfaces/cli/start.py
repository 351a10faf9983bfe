"""The start of every `remecli <command>`: its arguments parsed, settings from the `key=value`
arguments (and the working dir, for commands on an existing one), or the exit code after a
one-line error or the usage text."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

from remecli.config.errors import ConfigError
from remecli.config.loader import load_settings
from remecli.config.locations import Locations
from remecli.config.settings import Settings

Options = TypeVar("Options")


class UsageError(ValueError):
    """Bad command-line arguments; an empty message means the help was asked for."""


def usage_exit_code(
    error: UsageError, usage: str, *, prefix: str = "", help_text: str | None = None
) -> int:
    """Print `error` and the usage (or, for asked-for help, `help_text` or the usage) on stderr;
    the exit code: 2, or 0 for help."""
    if str(error):
        print(f"{prefix}{error}\n{usage}", file=sys.stderr)
        return 2
    print(usage if help_text is None else help_text, file=sys.stderr)
    return 0


def settings_or_exit_code(setting_args: list[str], prefix: str = "remecli") -> Settings | int:
    """The settings, or 2 after printing the bad setting as `<prefix>: …` on stderr."""
    try:
        return load_settings(setting_args)
    except ConfigError as exc:
        print(f"{prefix}: {exc}", file=sys.stderr)
        return 2


def settings_and_working_dir(setting_args: list[str]) -> tuple[Settings, Locations] | int:
    """`(settings, locations)`, or 2 for a bad setting / 1 for a missing working dir (the
    message already printed on stderr)."""
    settings = settings_or_exit_code(setting_args)
    if isinstance(settings, int):
        return settings
    locations = Locations.from_settings(settings)
    if not locations.root.is_dir():
        print(
            f"remecli: no working dir at {locations.root}; run remecli there first or pass "
            "working_dir=PATH",
            file=sys.stderr,
        )
        return 1
    return settings, locations


def start_on_working_dir(
    parse: Callable[[], tuple[Options, list[str]]], usage: str
) -> tuple[Options, Settings, Locations] | int:
    """`parse()` gives (options, `key=value` arguments): `(options, settings, locations)`, or the
    exit code after the usage (a `UsageError`) or a one-line error was printed."""
    try:
        options, setting_args = parse()
    except UsageError as exc:
        return usage_exit_code(exc, usage)
    started = settings_and_working_dir(setting_args)
    if isinstance(started, int):
        return started
    settings, locations = started
    return options, settings, locations
