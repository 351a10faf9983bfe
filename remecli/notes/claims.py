"""Claims with a time: the one parser and formatter of a claim's validity in Markdown.

A claim is a list item that carries its validity in a trailing parenthesis, readable and
editable in any editor (Obsidian and GitHub show the strike-through):

    - Alice lives in Berlin (since 2026-03-02)
    - ~~Alice lives in Munich~~ (2024-05-01 to 2026-03-02, replaced by "Alice lives in Berlin")

A current claim says `since DATE`; a superseded one is struck through and says when it held
(`FROM to UNTIL`, or `until UNTIL` when its start is unknown) and, optionally, what replaced
it (quoted text or a wikilink). Anything after the parenthesis (wikilinks to the cards it
rests on) is kept as the claim's provenance. A list item without such a parenthesis is not a
timed claim and is left alone by everything here.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

_DATE = r"\d{4}-\d{2}-\d{2}"
_CURRENT = re.compile(
    rf"^\s*[-*+]\s+(?P<text>(?!~~).+?)\s+\((?:since|from|自)\s*(?P<since>{_DATE})\s*(?:起)?\)"
    r"(?P<rest>.*)$"
)
_SUPERSEDED = re.compile(
    rf"^\s*[-*+]\s+~~(?P<text>.+?)~~\s+\("
    rf"(?:(?P<since>{_DATE})\s*(?:to|until|→|-|至)\s*|(?:until|至)\s*)(?P<until>{_DATE})"
    r"(?:\s*[,;，；]\s*(?:replaced by|由)\s*(?P<by>[^)]+?))?\s*\)(?P<rest>.*)$"
)


@dataclass(frozen=True)
class Claim:
    """One timed claim: its text, when it held, what replaced it, its 1-based line."""

    text: str
    since: dt.date | None
    until: dt.date | None
    replaced_by: str
    line: int
    provenance: str = ""

    @property
    def superseded(self) -> bool:
        """True when a later claim replaced this one."""
        return self.until is not None

    def holds_on(self, day: dt.date) -> bool:
        """True when the claim was the valid one on `day`."""
        if self.since is not None and day < self.since:
            return False
        return self.until is None or day < self.until

    def brief(self) -> dict[str, str]:
        """What a search hit carries about the claim."""
        return {
            "text": self.text,
            "since": self.since.isoformat() if self.since else "",
            "until": self.until.isoformat() if self.until else "",
            "replaced_by": self.replaced_by,
        }


def _date(value: str | None) -> dt.date | None:
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def parse_claim(line: str, number: int = 1) -> Claim | None:
    """The claim on `line`, None when the line is not a timed claim."""
    found = _SUPERSEDED.match(line)
    if found:
        until = _date(found.group("until"))
        if until is None:
            return None
        by = (found.group("by") or "").strip().strip('"“”')
        return Claim(
            found.group("text").strip(),
            _date(found.group("since")),
            until,
            by,
            number,
            found.group("rest").strip(),
        )
    found = _CURRENT.match(line)
    if found:
        since = _date(found.group("since"))
        if since is None:
            return None
        rest = found.group("rest").strip()
        return Claim(found.group("text").strip(), since, None, "", number, rest)
    return None


def parse_claims(text: str, first_line: int = 1) -> list[Claim]:
    """Every timed claim in `text`, numbered from `first_line`."""
    found = []
    for offset, line in enumerate(text.splitlines()):
        claim = parse_claim(line, first_line + offset)
        if claim is not None:
            found.append(claim)
    return found


def current_line(text: str, since: dt.date, provenance: str = "") -> str:
    """`- text (since DATE) provenance`."""
    tail = f" {provenance.strip()}" if provenance.strip() else ""
    return f"- {text.strip()} (since {since.isoformat()}){tail}"


def superseded_line(
    text: str,
    until: dt.date,
    *,
    since: dt.date | None = None,
    replaced_by: str = "",
    provenance: str = "",
) -> str:
    """`- ~~text~~ (FROM to UNTIL, replaced by "…") provenance`."""
    held = f"{since.isoformat()} to {until.isoformat()}" if since else f"until {until.isoformat()}"
    by = replaced_by.strip().replace('"', "'").replace(")", "]")
    if by and not by.startswith("[["):
        by = f'"{by}"'
    tail = f" {provenance.strip()}" if provenance.strip() else ""
    return (
        f"- ~~{text.strip().replace('~~', '')}~~ ({held}"
        + (f", replaced by {by})" if by else ")")
        + tail
    )


def newly_superseded(before: str | None, after: str | None) -> list[Claim]:
    """The claims `after` strikes that `before` did not strike (what a change superseded)."""
    known = {(c.text, c.until) for c in parse_claims(before or "") if c.superseded}
    return [c for c in parse_claims(after or "") if c.superseded and (c.text, c.until) not in known]


def without_superseded(text: str) -> tuple[str, int]:
    """`text` without its superseded claim lines, and how many were left out (what a system
    prompt carries: current claims only)."""
    kept, dropped = [], 0
    for line in text.splitlines(keepends=True):
        claim = parse_claim(line)
        if claim is not None and claim.superseded:
            dropped += 1
            continue
        kept.append(line)
    return "".join(kept), dropped
