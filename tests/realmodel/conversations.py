"""The scripted conversations the real-model tier saves into memory (the issue's two, and a
longer one of 15 turns), as (role, HH:MM, text) turns, with the facts a faithful card must keep."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

DAY = dt.date(2026, 3, 6)


@dataclass(frozen=True)
class Conversation:
    """One conversation: its turns and the words a faithful card or memory must contain."""

    name: str
    turns: tuple[tuple[str, str, str], ...]
    must_keep: tuple[str, ...]
    in_memory_md: tuple[str, ...] = ()  # what an explicit "remember" must put in MEMORY.md

    def messages(self, turns: tuple[tuple[str, str, str], ...] | None = None) -> list[Any]:
        """The turns as agentscope messages dated on `DAY`."""
        from agentscope.message import AssistantMsg, UserMsg

        built: list[Any] = []
        for role, hhmm, text in turns if turns is not None else self.turns:
            stamp = f"{DAY.isoformat()}T{hhmm}:00"
            if role == "user":
                built.append(UserMsg(name="user", content=text, created_at=stamp))
            else:
                built.append(AssistantMsg(name="ReMe", content=text, created_at=stamp))
        return built


STAGING = Conversation(
    "staging",
    (
        (
            "user",
            "09:12",
            "please remember: our staging database is pg-stage-7 in Frankfurt, we deploy on "
            "Fridays with make ship",
        ),
        (
            "assistant",
            "09:12",
            "Noted: staging database pg-stage-7 (Frankfurt); deploys on Fridays with `make ship`.",
        ),
    ),
    ("pg-stage-7", "make ship"),
    ("pg-stage-7", "Frankfurt", "make ship"),
)

BILLING = Conversation(
    "billing",
    (
        (
            "user",
            "14:03",
            "We decided to move billing from MySQL to PostgreSQL 16 next quarter, because of "
            "JSONB. Unrelated: I adopted a cat called Miso.",
        ),
        (
            "assistant",
            "14:04",
            "Got it: billing moves from MySQL to PostgreSQL 16 next quarter for JSONB support. "
            "And congratulations on Miso!",
        ),
    ),
    ("PostgreSQL", "billing"),
)

FLAKY_TEST = Conversation(
    "flaky-test",
    (
        ("user", "10:00", "The CI of project atlas fails now and then in test_export_report."),
        (
            "assistant",
            "10:01",
            "Let's look. Does it fail locally with `pytest tests/test_export.py -x -p no:randomly`?",
        ),
        ("user", "10:03", "Locally it passes ten times in a row."),
        (
            "assistant",
            "10:05",
            "Then it depends on order or time. The report embeds datetime.now(); the CI runners "
            "are in UTC and the expected file was made in Europe/Berlin time.",
        ),
        ("user", "10:07", "Right, the expected file says 11:00 and CI produced 10:00."),
        (
            "assistant",
            "10:09",
            "Fix: freeze time with `freezegun` in the test and pass tz=UTC explicitly to "
            "export_report().",
        ),
        ("user", "10:15", "Done, CI is green. I prefer fixtures over decorators for freezegun."),
        (
            "assistant",
            "10:16",
            "Noted. The fixture `frozen_clock` now lives in tests/conftest.py.",
        ),
        ("user", "11:30", "Next: the export is slow for 50,000 rows, it takes 40 seconds."),
        (
            "assistant",
            "11:33",
            "Profiling shows 90% of the time in openpyxl cell styling. Writing with "
            "write_only=True mode and one shared style brings it to 6 seconds.",
        ),
        ("user", "11:40", "Ship it. We keep openpyxl; switching to xlsxwriter is not worth it."),
        (
            "assistant",
            "11:41",
            "Merged as PR #412: write_only mode, shared style; export of 50,000 rows in 6 s.",
        ),
        (
            "user",
            "14:02",
            "One more decision: from now on atlas release notes go to docs/CHANGELOG.md, not the "
            "wiki.",
        ),
        ("assistant", "14:03", "Done: I moved the last three wiki entries to docs/CHANGELOG.md."),
        ("user", "14:05", "I'm off Monday to Wednesday next week; Lena reviews atlas PRs then."),
    ),
    ("freezegun", "write_only", "CHANGELOG"),
)
FLAKY_TEST_SPLIT = 8  # the first part is saved, then the whole conversation updates the card
