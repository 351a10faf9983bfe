"""A question about a day or month prefers memories from around then (`search.date_boost`),
through a real keyword index on session notes whose headings carry their dates."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from remecli.search import MemoryIndex, SearchRequest
from remecli.search.dates import chunk_day, question_windows
from tests.search.helpers import settings

# Both sessions talk about Calvin's trip; only the October one is when the question asks about.
SESSIONS = {
    "session_01.md": (
        "# Session 1 (2023-06-05)\n\n"
        "Calvin: the city trip to Paris, what a city trip! Which city next, Calvin?\n"
    ),
    "session_02.md": (
        "# Session 2 (2023-10-04)\n\n"
        "Calvin: yesterday I met some artists in Boston, a city I love, and we talked about "
        "working together on a new album; what a trip it has been.\n"
    ),
}


def _paths(folder: Path, query: str, **changes: float) -> list[str]:
    (folder / "memory").mkdir(exist_ok=True)
    for name, text in SESSIONS.items():
        (folder / "memory" / name).write_text(text, encoding="utf-8")
    index = MemoryIndex.open(folder, settings(**changes))
    try:
        index.sync_blocking()
        return [
            hit.path
            for hit in index.search_blocking(
                SearchRequest(query=query, max_results=2, min_score=0.0)
            )
        ]
    finally:
        index.close()


def test_a_question_about_a_day_ranks_that_weeks_session_first(tmp_path: Path) -> None:
    query = "Which city trip was Calvin on on October 3, 2023?"
    assert _paths(tmp_path, query, date_boost=0.0)[0] == "memory/session_01.md"
    assert _paths(tmp_path, query, date_boost=0.5)[0] == "memory/session_02.md"


def test_a_question_without_a_date_ranks_as_before(tmp_path: Path) -> None:
    query = "Which city trip was Calvin on?"
    assert _paths(tmp_path, query, date_boost=0.5) == _paths(tmp_path, query, date_boost=0.0)


def test_question_windows_read_days_and_months_not_years() -> None:
    day = question_windows("How was John feeling on April 10, 2022?")
    assert [(w.first, w.last) for w in day] == [(dt.date(2022, 4, 10), dt.date(2022, 4, 10))]
    month = question_windows("Where was Calvin in the last week of October 2023?")
    assert [(w.first, w.last) for w in month] == [(dt.date(2023, 10, 1), dt.date(2023, 10, 31))]
    assert question_windows("What did he do in 2022?") == []
    # a session told two weeks later still matches; one a month later does not
    assert day[0].matches(dt.date(2022, 4, 24)) and not day[0].matches(dt.date(2022, 5, 10))


def test_a_chunk_is_dated_by_its_own_date_else_its_heading() -> None:
    assert chunk_day("2024-02-03", "Session 4 (1:56 pm on 8 May, 2023)") == dt.date(2024, 2, 3)
    assert chunk_day("", "Session 4 (1:56 pm on 8 May, 2023)") == dt.date(2023, 5, 8)
    assert chunk_day("", "Cooking") is None
