"""`dream_due()`: whether the background should start a dream. Apart from `runner` (which loads
the agent runtime a dream runs on, ~2.6 CPU-s): every memory runtime's start asks it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from remecli.config.settings import Settings
from remecli.knowledge.background.backoff import retry_due
from remecli.knowledge.dream.state import Catalog, has_changed_cards
from remecli.notes.layout import WorkingDir


def local_now() -> dt.datetime:
    """The local time, with its zone."""
    return dt.datetime.now().astimezone()


def dream_due(
    settings: Settings, working_dir: WorkingDir | None = None, now: dt.datetime | None = None
) -> bool:
    """True when the last successful dream is older than `memory.dream.interval_hours` (or
    there was none), a failed one has waited out its backoff (`knowledge.background.backoff`, as pending
    summaries do) and some card is new or changed. Cheap: file stats only."""
    wd = working_dir or WorkingDir(Path(settings.working_dir))
    catalog = Catalog.load(wd)
    if not retry_due(catalog.backoff, dt.datetime.now()):
        return False
    last = catalog.last_success_time()
    interval = dt.timedelta(hours=settings.memory.dream.interval_hours)
    if last is not None and (now or local_now()) - last < interval:
        return False
    return has_changed_cards(wd, catalog)
