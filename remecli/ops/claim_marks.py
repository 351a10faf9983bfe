"""Search hits that know time: each hit's timed claims (`notes/claims.py`) marked as valid or
superseded on a day (`as_of`, default today), and hits whose claims all stopped being true
(or were not yet true) ranked after the others, with what replaced them and when.

A card has no timed claims of its own; the digest's `## History` lines link the cards each
claim rests on, so a card that supports only claims superseded on that day is marked too (an
old card saying "lives in Munich" ranks after the news of the move). A hit with no claims of
its own or through the digest is left exactly as it was.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from remecli.notes.claims import Claim, parse_claims
from remecli.notes.files import read_memory_text
from remecli.notes.links.parse import link_targets

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


def digest_support(root: Path) -> dict[str, list[Claim]]:
    """Card path → the timed claims of digest nodes that cite it (the claim line's links)."""
    support: dict[str, list[Claim]] = {}
    folder = root / "digest"
    for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
        try:
            if path.stat().st_size > MAX_READ:
                continue
            text = read_memory_text(path)
        except (OSError, ValueError):
            continue
        for claim in parse_claims(text) if "~~" in text or "(since" in text else []:
            for card in link_targets(claim.provenance):
                support.setdefault(card, []).append(claim)
    return support


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
    support: dict[str, list[Claim]] | None = None
    for hit in hits:
        path = str(hit.get("path") or "")
        start, end = int(hit.get("start_line") or 1), int(hit.get("end_line") or 0)
        text = _lines(root, path, start, end, cache)
        claims = parse_claims(text, start) if "(" in text else []
        if not claims and path.startswith("digest/"):  # a node's claims are its History's
            claims = parse_claims("\n".join(cache[path]))
        elif not claims:
            if support is None:
                support = digest_support(root)
            claims = support.get(path, [])
        if claims and _mark(hit, claims, day):
            stale.append(hit)
        else:
            fresh.append(hit)
    hits[:] = fresh + stale
