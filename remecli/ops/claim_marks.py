"""Search hits that know time: each hit's timed claims (`notes/claims.py`) marked as valid or
superseded on a day (`as_of`, default today), and hits whose claims all stopped being true
(or were not yet true) ranked after the others, with what replaced them and when.

A card has no timed claims of its own; the digest's `## History` lines link the cards each
claim rests on, so a card that supports only claims superseded on that day is marked too (an
old card saying "lives in Munich" ranks after the news of the move). Only the nodes that link to
the card are read (its backlinks, which a runtime search's hits carry). A hit with no claims of
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


def _citing_nodes(root: Path, hit: dict[str, Any]) -> list[str]:
    """The digest nodes that link to the hit's file: its backlinks from the link graph when the
    hit carries them (a runtime search), else every node (a bare index)."""
    links = hit.get("links")
    if isinstance(links, dict):
        return [
            str(n.get("path"))
            for n in links.get("in", [])
            if str(n.get("path", "")).startswith("digest/")
        ]
    folder = root / "digest"
    found = sorted(folder.rglob("*.md")) if folder.is_dir() else []
    return [path.relative_to(root).as_posix() for path in found]


def cited_claims(root: Path, hit: dict[str, Any], cache: dict[str, list[str]]) -> list[Claim]:
    """The timed claims of digest nodes whose claim lines cite the hit's file (a card)."""
    card = str(hit.get("path") or "")
    found: list[Claim] = []
    for node in _citing_nodes(root, hit):
        _lines(root, node, 1, 1, cache)  # reads (and keeps) the node once
        text = "\n".join(cache[node])
        if "~~" not in text and "(since" not in text:
            continue
        found += [c for c in parse_claims(text) if card in link_targets(c.provenance)]
    return found


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
        path = str(hit.get("path") or "")
        start, end = int(hit.get("start_line") or 1), int(hit.get("end_line") or 0)
        text = _lines(root, path, start, end, cache)
        claims = parse_claims(text, start) if "(" in text else []
        if not claims and path.startswith("digest/"):  # a node's claims are its History's
            claims = parse_claims("\n".join(cache[path]))
        elif not claims:
            claims = cited_claims(root, hit, cache)
        if claims and _mark(hit, claims, day):
            stale.append(hit)
        else:
            fresh.append(hit)
    hits[:] = fresh + stale
