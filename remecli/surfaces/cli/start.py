"""The start of every `remecli <command>`: settings from its `key=value` arguments (and the
working dir, for commands on an existing one), or the exit code after a one-line error."""

from __future__ import annotations

import sys

from remecli.config.errors import ConfigError
from remecli.config.loader import load_settings
from remecli.config.locations import Locations
from remecli.config.settings import Settings


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
