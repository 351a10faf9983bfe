"""A search's restrictions from the API's arguments: one source, a date range."""

from __future__ import annotations

import datetime as dt

from remecli.search.keyword import Filters
from remecli.search.store import day_number
from remecli.search.transcripts import SOURCE as TRANSCRIPT
from remecli.search.types import DateLike

SOURCES = {"notes": "notes", "transcripts": TRANSCRIPT, "transcript": TRANSCRIPT}


def _day(value: DateLike, name: str) -> int | None:
    """A date given as YYYY-MM-DD (or a date) → YYYYMMDD; ValueError says what is wrong."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        value = value.date()
    if isinstance(value, str):
        try:
            value = dt.date.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"{name} must be a date like 2025-01-31, got {value!r}") from None
    return day_number(value.isoformat())


def make_filters(source: str | None, since: DateLike, until: DateLike) -> Filters:
    """Filters from the API's arguments (source notes|transcripts|all|None)."""
    if source not in (None, "", "all") and source not in SOURCES:
        raise ValueError(f"source must be notes, transcripts or all, got {source!r}")
    low, high = _day(since, "since"), _day(until, "until")
    if high is not None and low is None:
        low = 1  # undated chunks never fall inside a date range
    return Filters(SOURCES.get(source or ""), low, high)
