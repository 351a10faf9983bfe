"""Timed claims in Markdown (`notes/claims.py`): one parser, its formatter, and the History a
dream's correction keeps (`knowledge/dream/timeline.py`)."""

from __future__ import annotations

import datetime as dt

from remecli.knowledge.dream.timeline import card_day, record_correction
from remecli.notes.claims import (
    current_line,
    newly_superseded,
    parse_claim,
    parse_claims,
    superseded_line,
    without_superseded,
)

D = dt.date


def test_current_and_superseded_claims_parse_with_their_time() -> None:
    now = parse_claim("- Alice lives in Berlin (since 2026-03-02) [[memory/2026-03-02/m.md]]")
    assert now is not None and not now.superseded
    assert (now.text, now.since, now.provenance) == (
        "Alice lives in Berlin",
        D(2026, 3, 2),
        "[[memory/2026-03-02/m.md]]",
    )
    old = parse_claim(
        '* ~~Alice lives in Munich~~ (2024-05-01 to 2026-03-02, replaced by "Alice lives in Berlin")'
    )
    assert old is not None and old.superseded
    assert (old.since, old.until, old.replaced_by) == (
        D(2024, 5, 1),
        D(2026, 3, 2),
        "Alice lives in Berlin",
    )
    assert old.holds_on(D(2025, 1, 1)) and not old.holds_on(D(2026, 3, 2))
    assert now.holds_on(D(2026, 3, 2)) and not now.holds_on(D(2026, 3, 1))
    unknown_start = parse_claim("- ~~Uses MySQL~~ (until 2025-01-10)")
    assert unknown_start is not None and unknown_start.since is None
    assert unknown_start.holds_on(D(1999, 1, 1))


def test_lines_that_are_not_timed_claims_are_left_alone() -> None:
    for line in (
        "- Alice lives in Berlin",
        "- Meeting (2026-03-02)",
        "- ~~struck but untimed~~",
        "Alice lives in Berlin (since 2026-03-02)",
        "- Moved (since 2026-13-45)",
    ):
        assert parse_claim(line) is None, line


def test_the_formatter_writes_what_the_parser_reads() -> None:
    line = superseded_line(
        "Uses ~~MySQL~~ 5", D(2025, 1, 10), since=D(2024, 2, 1), replaced_by='Uses "SQLite"'
    )
    claim = parse_claim(line)
    assert claim is not None
    assert (claim.text, claim.since, claim.until, claim.replaced_by) == (
        "Uses MySQL 5",
        D(2024, 2, 1),
        D(2025, 1, 10),
        "Uses 'SQLite'",
    )
    assert parse_claim(current_line("Uses SQLite", D(2025, 1, 10))) is not None
    linked = parse_claim(superseded_line("Old", D(2025, 1, 1), replaced_by="[[digest/wiki/n.md]]"))
    assert linked is not None and linked.replaced_by == "[[digest/wiki/n.md]]"


def test_a_prompt_gets_current_claims_only() -> None:
    text = (
        "# MEMORY\n- Lives in Berlin (since 2026-03-02)\n"
        "- ~~Lives in Munich~~ (2024-05-01 to 2026-03-02)\n- Likes tea\n"
    )
    kept, dropped = without_superseded(text)
    assert dropped == 1 and "Munich" not in kept and "Berlin" in kept and "tea" in kept


def test_two_corrections_keep_the_whole_timeline() -> None:
    body = "Uses MySQL.\n\n## Sources\n- [[memory/2024-02-01/a.md]]\n"
    once = record_correction(
        body,
        old_claim="Uses MySQL",
        new_claim="Uses PostgreSQL",
        day=D(2025, 1, 10),
        held_since=D(2024, 2, 1),
        source="memory/2025-01-10/b.md",
    )
    twice = record_correction(
        once,
        old_claim="ignored: the History has a current claim",
        new_claim="Uses SQLite",
        day=D(2026, 4, 1),
        held_since=D(2024, 2, 1),
        source="memory/2026-04-01/c.md",
    )
    claims = parse_claims(twice)
    assert [(c.text, c.since, c.until) for c in claims] == [
        ("Uses SQLite", D(2026, 4, 1), None),
        ("Uses PostgreSQL", D(2025, 1, 10), D(2026, 4, 1)),
        ("Uses MySQL", D(2024, 2, 1), D(2025, 1, 10)),
    ]
    assert [c.text for c in claims if c.holds_on(D(2025, 6, 1))] == ["Uses PostgreSQL"]
    assert twice.count("## History") == 1 and twice.rstrip().endswith("[[memory/2024-02-01/a.md]]")
    assert "ignored" not in twice


def test_a_correction_is_dated_by_its_card() -> None:
    assert card_day(["memory/2025-02-03/x.md", "memory/2025-02-01/y.md"], D(2030, 1, 1)) == D(
        2025, 2, 1
    )
    assert card_day(["digest/wiki/n.md"], D(2030, 1, 1)) == D(2030, 1, 1)


def test_what_a_change_superseded() -> None:
    before = '- Uses MySQL (since 2024-02-01)\n- ~~Uses Oracle~~ (until 2024-02-01, replaced by "Uses MySQL")\n'
    after = (
        "- Uses SQLite (since 2026-04-01)\n"
        '- ~~Uses MySQL~~ (2024-02-01 to 2026-04-01, replaced by "Uses SQLite")\n'
        '- ~~Uses Oracle~~ (until 2024-02-01, replaced by "Uses MySQL")\n'
    )
    [gone] = newly_superseded(before, after)
    assert (gone.text, gone.since, gone.until, gone.replaced_by) == (
        "Uses MySQL",
        D(2024, 2, 1),
        D(2026, 4, 1),
        "Uses SQLite",
    )
    assert newly_superseded(after, after) == [] and newly_superseded(None, None) == []
    assert [c.text for c in newly_superseded(None, after)] == ["Uses MySQL", "Uses Oracle"]
