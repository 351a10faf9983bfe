"""Search hits that know time: each hit's timed claims (`notes/claims.py`) marked as valid or
superseded on a day (`as_of`, default today), and hits whose claims all stopped being true
(or were not yet true) ranked after the others, with what replaced them and when.

A hit without timed claims is left exactly as it was.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from remecli.notes.claims import Claim, parse_claims
from remecli.notes.files import read_memory_text

MAX_READ = 256 * 1024  # a hit's file is read for its line range only; huge files are skipped


def _lines(root: Path, rel: str, start: int, end: int, cache: dict[str, list[str]]) -> str:
    if rel not in cache:
        path = root / rel
        try:
            text = read_memory_text(path) if path.stat().st_size <= MAX_READ else ""
        except (OSError, ValueError):
            text = ""
        cache[rel] = text.splitlines()
    return "\n".join(cache[rel][max(start - 1, 0) : end])


def _mark(hit: dict[str, Any], claims: list[Claim], day: dt.date) -> bool:
    """Annotate `hit`; True when none of its claims held on `day`."""
    valid = [claim for claim in claims if claim.holds_on(day)]
    hit["claims"] = [{**claim.brief(), "valid": claim in valid} for claim in claims]
    if valid:
        return False
    latest = max(claims, key=lambda claim: claim.until or claim.since or day)
    hit["superseded"] = {
        "until": latest.until.isoformat() if latest.until else "",
        "replaced_by": latest.replaced_by,
        "not_yet": all(c.since is not None and day < c.since for c in claims),
    }
    return True


def mark_claims(hits: list[dict[str, Any]], root: Path, as_of: dt.date | None) -> None:
    """Mark every hit's claims on `as_of` (today when None), in place; hits none of whose
    claims held then move after the rest (each group keeps its order)."""
    day = as_of or dt.date.today()
    cache: dict[str, list[str]] = {}
    stale: list[dict[str, Any]] = []
    fresh: list[dict[str, Any]] = []
    for hit in hits:
        start, end = int(hit.get("start_line") or 1), int(hit.get("end_line") or 0)
        text = _lines(root, str(hit.get("path") or ""), start, end, cache)
        claims = parse_claims(text, start) if "(" in text else []
        if claims and _mark(hit, claims, day):
            stale.append(hit)
        else:
            fresh.append(hit)
    hits[:] = fresh + stale
