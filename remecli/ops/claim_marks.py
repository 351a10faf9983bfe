"""Search hits that know time: each hit's timed claims (`notes/claims.py`) marked as valid or
superseded on a day (`as_of`, default today), and hits whose claims all stopped being true
(or were not yet true) ranked after the others, with what replaced them and when.

A hit's own claims are read from its chunk's text, which the index hands over with the hit
(no file is read for them). A card has no timed claims of its own; the digest's `## History`
lines link the cards each claim rests on, so a card that supports only claims superseded on
that day is marked too (an old card saying "lives in Munich" ranks after the news of the
move). Only the nodes that link to the card are read (its backlinks, which a runtime search's
hits carry), and a digest node hit's whole History. A hit with no claims of its own or through
the digest is left exactly as it was.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from remecli.notes.claims import Claim, parse_claims
from remecli.notes.files import read_memory_text
from remecli.notes.links.parse import link_targets
from remecli.search.hits import ClaimMark, SearchHit, Superseded

MAX_READ = 256 * 1024  # a digest node larger than this is not read for its claims


def _file(root: Path, rel: str, cache: dict[str, str]) -> str:
    """The text of the note `rel` (read once per search; '' when missing or too large)."""
    if rel not in cache:
        path = root / rel
        try:
            cache[rel] = read_memory_text(path) if path.stat().st_size <= MAX_READ else ""
        except (OSError, ValueError):
            cache[rel] = ""
    return cache[rel]


def _citing_nodes(root: Path, hit: SearchHit) -> list[str]:
    """The digest nodes that link to the hit's file: its backlinks from the link graph when the
    hit carries them (a runtime search), else every node (a bare index)."""
    if hit.links is not None:
        return [n.path for n in hit.links.in_ if n.path.startswith("digest/")]
    folder = root / "digest"
    found = sorted(folder.rglob("*.md")) if folder.is_dir() else []
    return [path.relative_to(root).as_posix() for path in found]


def cited_claims(root: Path, hit: SearchHit, cache: dict[str, str]) -> list[Claim]:
    """The timed claims of digest nodes whose claim lines cite the hit's file (a card)."""
    found: list[Claim] = []
    for node in _citing_nodes(root, hit):
        text = _file(root, node, cache)
        if "~~" not in text and "(since" not in text:
            continue
        found += [c for c in parse_claims(text) if hit.path in link_targets(c.provenance)]
    return found


def _mark(hit: SearchHit, claims: list[Claim], day: dt.date) -> bool:
    """Annotate `hit`; True when none of its claims held on `day`."""
    valid = [claim for claim in claims if claim.holds_on(day)]
    hit.claims = [ClaimMark(**claim.brief(), valid=claim in valid) for claim in claims]
    if valid:
        return False
    latest = max(claims, key=lambda claim: claim.until or claim.since or day)
    hit.superseded = Superseded(
        until=latest.until.isoformat() if latest.until else "",
        replaced_by=latest.replaced_by,
        not_yet=all(c.since is not None and day < c.since for c in claims),
    )
    return True


def mark_claims(hits: list[SearchHit], root: Path, as_of: dt.date | None) -> None:
    """Mark every hit's claims on `as_of` (today when None), in place; hits none of whose
    claims held then move after the rest (each group keeps its order)."""
    day = as_of or dt.date.today()
    cache: dict[str, str] = {}
    stale: list[SearchHit] = []
    fresh: list[SearchHit] = []
    for hit in hits:
        text = hit.text if hit.source == "notes" else ""  # a transcript's lines state no claim
        claims = parse_claims(text, hit.start_line) if "(" in text else []
        if not claims and hit.path.startswith("digest/"):  # a node's claims are its History's
            claims = parse_claims(_file(root, hit.path, cache))
        elif not claims:
            claims = cited_claims(root, hit, cache)
        if claims and _mark(hit, claims, day):
            stale.append(hit)
        else:
            fresh.append(hit)
    hits[:] = fresh + stale
