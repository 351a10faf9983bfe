"""`remecli dream`: one dream from the shell, its outcome in one line."""

from __future__ import annotations

import asyncio
import datetime as dt
import sys

from remecli.config.settings import Settings


def parse_date(text: str) -> dt.date:
    """`YYYY-MM-DD` as a date; raises ValueError with a usable message."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"date must be YYYY-MM-DD, got {text!r}") from None


def dream_once(settings: Settings, day: dt.date | None = None) -> int:
    """Run one dream over the cards up to `day` (default: today); exit 0 when it completed."""
    from remecli.config.locations import Locations
    from remecli.config.logs import setup_logging
    from remecli.knowledge.dream.runner import dream

    setup_logging(settings)
    working_dir = Locations.from_settings(settings).ensure()
    result = asyncio.run(dream(settings, working_dir, date=day))
    print(result.message, file=sys.stdout if result.ok else sys.stderr)
    return 0 if result.ok else 1
