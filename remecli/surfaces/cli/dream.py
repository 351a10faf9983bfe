"""`remecli dream [date=YYYY-MM-DD] [config=…] [key=value …]`: one dream from the shell."""

from __future__ import annotations

import asyncio
import datetime as dt
import sys

USAGE = "usage: remecli dream [date=YYYY-MM-DD] [config=NAME] [key=value ...]"


def parse_date(argv: list[str]) -> tuple[dt.date | None, list[str]]:
    """(`date=` value, the other arguments); raises ValueError with a usable message."""
    day: dt.date | None = None
    rest: list[str] = []
    for arg in argv:
        if arg.startswith("date="):
            try:
                day = dt.date.fromisoformat(arg[5:])
            except ValueError:
                raise ValueError(f"date must be YYYY-MM-DD, got {arg[5:]!r}") from None
        else:
            rest.append(arg)
    return day, rest


def run(argv: list[str]) -> int:
    """Run one dream; prints its outcome in one line. Exit 0 when it completed cleanly."""
    if any(a in ("-h", "--help") for a in argv):
        print(USAGE)
        return 0
    from remecli.config import ConfigError, load_settings

    try:
        day, setting_args = parse_date(argv)
        settings = load_settings(setting_args)
    except (ValueError, ConfigError) as exc:
        print(f"remecli dream: {exc}\n{USAGE}", file=sys.stderr)
        return 2
    from remecli.config.locations import Locations
    from remecli.config.logs import setup_logging
    from remecli.knowledge.dream.runner import dream

    setup_logging(settings)
    working_dir = Locations.from_settings(settings).ensure()
    result = asyncio.run(dream(settings, working_dir, date=day))
    print(result.message, file=sys.stdout if result.ok else sys.stderr)
    return 0 if result.ok else 1
