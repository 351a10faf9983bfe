"""A digest node's `## History`: the timeline of its claim, kept by code from Auto Dream's
CORRECT actions (`notes/claims.py` is the format).

On a CORRECT, the claim that stopped being true (the dream's `note`) is struck through with
when it held and what replaced it, and the node's new claim (its `description`) becomes the
current one, true since the date of the card that corrected it. A second correction supersedes
that one in turn, so the node keeps every claim it ever made, each with its time.
"""

from __future__ import annotations

import datetime as dt
import re

from remecli.notes.claims import current_line, parse_claim, superseded_line

HISTORY_TITLES = ("history", "历史")
HEADING = {"en": "## History", "zh": "## 历史"}
_H2 = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)
MAX_CARDS = 8  # wikilinks kept on a claim's line
_DAY = re.compile(r"(\d{4}-\d{2}-\d{2})")


def card_day(cards: list[str], fallback: dt.date) -> dt.date:
    """The day of the earliest dated card (`memory/YYYY-MM-DD/...`), else `fallback`."""
    days = []
    for card in cards:
        found = _DAY.search(card)
        if found:
            try:
                days.append(dt.date.fromisoformat(found.group(1)))
            except ValueError:
                continue
    return min(days) if days else fallback


def _history_span(body: str) -> tuple[int, int] | None:
    """Start and end offsets of the `## History` section's lines (after its heading)."""
    headings = list(_H2.finditer(body))
    for number, heading in enumerate(headings):
        if heading.group(1).strip().lower() in HISTORY_TITLES:
            end = headings[number + 1].start() if number + 1 < len(headings) else len(body)
            return heading.end(), end
    return None


def _before_sources(body: str) -> int:
    headings = list(_H2.finditer(body))
    return headings[-1].start() if headings else len(body)


def history_lines(body: str) -> list[str]:
    """The lines of the body's `## History` section (none when it has none)."""
    span = _history_span(body)
    return body[span[0] : span[1]].strip("\n").splitlines() if span else []


def with_history(body: str, lines: list[str], language: str = "en") -> str:
    """`body` with its `## History` section holding exactly `lines` (before `## Sources`)."""
    span = _history_span(body)
    section = "\n".join(lines) + "\n"
    if span:
        return body[: span[0]] + "\n" + section + "\n" + body[span[1] :].lstrip("\n")
    at = _before_sources(body)
    heading = HEADING.get(language, HEADING["en"])
    return body[:at].rstrip("\n") + f"\n\n{heading}\n{section}\n" + body[at:]


def record_correction(
    body: str,
    *,
    old_claim: str,
    new_claim: str,
    day: dt.date,
    held_since: dt.date | None,
    source: str,
    language: str = "en",
    old_sources: list[str] | None = None,
) -> str:
    """`body` with its History updated for a correction on `day`: every current claim there
    (or, when none, `old_claim`, resting on the cards `old_sources`) superseded by
    `new_claim`, which is current from `day` and rests on `source`. Each claim keeps the
    wikilinks of its cards, so search can tell a card that only supports a superseded claim."""
    link = f"[[{source}]]" if source else ""
    lines = history_lines(body)
    updated: list[str] = []
    replaced = False
    for line in lines:
        claim = parse_claim(line)
        if claim is not None and not claim.superseded:
            replaced = True
            line = superseded_line(
                claim.text,
                day,
                since=claim.since,
                replaced_by=new_claim,
                provenance=claim.provenance,
            )
        updated.append(line)
    if not replaced and old_claim.strip():
        cards = " ".join(f"[[{card}]]" for card in (old_sources or [])[:MAX_CARDS])
        updated.append(
            superseded_line(
                old_claim, day, since=held_since, replaced_by=new_claim, provenance=cards
            )
        )
    updated.insert(0, current_line(new_claim, day, link))
    return with_history(body, updated, language)
