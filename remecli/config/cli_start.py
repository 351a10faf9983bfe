"""The start of every `remecli <command>` that works on an existing working dir: settings from
the `key=value` arguments and the working dir, or the exit code after a one-line error."""

from __future__ import annotations

import sys

from remecli.config.errors import ConfigError
from remecli.config.loader import load_settings
from remecli.config.locations import Locations
from remecli.config.settings import Settings


def settings_and_working_dir(setting_args: list[str]) -> tuple[Settings, Locations] | int:
    """`(settings, locations)`, or 2 for a bad setting / 1 for a missing working dir (the
    message already printed on stderr)."""
    try:
        settings = load_settings(setting_args)
    except ConfigError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 2
    locations = Locations.from_settings(settings)
    if not locations.root.is_dir():
        print(
            f"remecli: no working dir at {locations.root}; run remecli there first or pass "
            "working_dir=PATH",
            file=sys.stderr,
        )
        return 1
    return settings, locations
