"""Dates in a question and in a chunk, so a question about a day or month prefers memories
from around then.

A question names a day ("on March 16, 2022", "3 October 2023", "2023-10-03") or a month
("during March 2023", "in the last week of October 2023"): that is its window. A chunk's date
is its transcript or frontmatter date, else the first date in its heading path (a session
heading such as "Session 4 (1:56 pm on 8 May, 2023)"). A chunk dated inside the window, or up
to `AFTER_DAYS` after it (people tell what happened "yesterday" or "last week"), matches.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

AFTER_DAYS = 14  # a memory of an event is often told up to two weeks later
BEFORE_DAYS = 1

_MONTHS = {name.lower(): k for k, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): k for k, name in enumerate(calendar.month_abbr) if name})
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY_FIRST = re.compile(rf"\b{_DAY}\s+{_MONTH},?\s+{_YEAR}\b", re.I)
_MONTH_FIRST = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I)
_ISO = re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b")


@dataclass(frozen=True, slots=True)
class Window:
    """The days a question asks about (inclusive)."""

    first: dt.date
    last: dt.date

    def matches(self, day: dt.date) -> bool:
        """True when a chunk dated `day` may tell of this window."""
        low = self.first - dt.timedelta(days=BEFORE_DAYS)
        return low <= day <= self.last + dt.timedelta(days=AFTER_DAYS)


def _month(text: str) -> int:
    return _MONTHS[text.lower().rstrip(".")] if not text.isdigit() else int(text)


def _day(match: re.Match[str]) -> dt.date | None:
    try:
        return dt.date(int(match["year"]), _month(match["month"]), int(match["day"]))
    except (ValueError, KeyError):
        return None


def days_in(text: str) -> list[tuple[int, dt.date]]:
    """(offset, date) of every full date written in `text`."""
    found: list[tuple[int, dt.date]] = []
    for pattern in (_ISO, _DAY_FIRST, _MONTH_FIRST):
        for match in pattern.finditer(text):
            day = _day(match)
            if day is not None:
                found.append((match.start(), day))
    return sorted(found)


def question_windows(query: str) -> list[Window]:
    """The days and months `query` names (a year alone is too wide to help)."""
    windows = [Window(day, day) for _, day in days_in(query)]
    if windows:
        return windows
    for match in _MONTH_YEAR.finditer(query):
        year, month = int(match["year"]), _month(match["month"])
        last = calendar.monthrange(year, month)[1]
        windows.append(Window(dt.date(year, month, 1), dt.date(year, month, last)))
    return windows


def chunk_day(date: str, heading_path: str) -> dt.date | None:
    """A chunk's date: its own (YYYY-MM-DD) if it has one, else the first in its headings."""
    if date:
        try:
            return dt.date.fromisoformat(date[:10])
        except ValueError:
            pass
    found = days_in(heading_path)
    return found[0][1] if found else None
