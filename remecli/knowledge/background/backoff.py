"""The one backoff policy of background model jobs (pending summaries, Auto Dream): after a
failure the job waits RETRY_FIRST_WAIT, doubling per failure up to RETRY_LONGEST_WAIT, and a
start gives up after RETRY_LIMIT failures (what the user asks for — `/compact`, `/dream` — still
runs). The state is two fields kept with the job (`attempts`, `retry_after`), so it survives a
restart."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TypedDict

RETRY_LIMIT = 5  # failures after which a start no longer retries the job (asking still does)
RETRY_FIRST_WAIT = 600.0  # seconds after the first failure before a start retries it
RETRY_LONGEST_WAIT = 86_400.0


class Backoff(TypedDict, total=False):
    """The backoff state kept with a job: failures so far and when a start may retry it
    (naive local ISO time); neither until it first fails."""

    attempts: int
    retry_after: str


def retry_wait(attempts: int) -> float:
    """Seconds a start waits before retrying a job that failed `attempts` times."""
    return float(min(RETRY_FIRST_WAIT * 2 ** max(attempts - 1, 0), RETRY_LONGEST_WAIT))


def attempts_of(state: Mapping[str, object]) -> int:
    """The failures `state` notes (0 when none or unreadable)."""
    value = state.get("attempts") or 0
    try:
        return int(value) if isinstance(value, int | float | str) else 0
    except (TypeError, ValueError):
        return 0


def read_backoff(data: object) -> Backoff:
    """The backoff state in `data` as loaded from JSON ({} when none; unreadable fields are
    left out, which reads as never failed)."""
    found = Backoff()
    if isinstance(data, dict):
        if "attempts" in data:
            found["attempts"] = attempts_of(data)
        if isinstance(data.get("retry_after"), str):
            found["retry_after"] = data["retry_after"]
    return found


def retry_due(state: Mapping[str, object], now: dt.datetime) -> bool:
    """A start may retry this job: under RETRY_LIMIT failures and past its `retry_after`
    (`now` naive local time, as `retry_after` is written)."""
    if attempts_of(state) >= RETRY_LIMIT:
        return False
    try:
        after = dt.datetime.fromisoformat(str(state.get("retry_after") or ""))
    except ValueError:
        return True  # never failed (or an older record without one): due
    return now >= after


def after_failure(state: Mapping[str, object], now: dt.datetime | None = None) -> Backoff:
    """The `attempts` and `retry_after` to note after one more failure."""
    attempts = attempts_of(state) + 1
    due = (now or dt.datetime.now()) + dt.timedelta(seconds=retry_wait(attempts))
    return {"attempts": attempts, "retry_after": due.isoformat(timespec="seconds")}


def when_retried(attempts: int, asked: str) -> str:
    """When a job that failed `attempts` times runs again (`asked`: the command that runs it
    at once, e.g. "/dream")."""
    if attempts >= RETRY_LIMIT:
        return (
            f"after {attempts} failed attempts a start no longer retries it: fix the cause, "
            f"then {asked}"
        )
    wait = retry_wait(attempts) / 60
    return (
        f"it is tried again at a start {wait:.0f} min from now or later (attempt {attempts} "
        f"of {RETRY_LIMIT}), or now with {asked}"
    )
