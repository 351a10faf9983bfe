"""Digest nodes `digest/{personal,procedure,wiki}/<slug>.md`: scan, search, check, provenance.

Search reads the digest as it is now (it is small: short nodes, one per durable idea) into an
in-memory index of the search package's keyword engine, so it sees a node the moment it is
written, even with no memory index open. The provenance fields of a node's frontmatter (`kind`, `sources`, `first_seen`,
`last_confirmed`, `status`, `contradictions`) are set here, by code, from the dream's actions.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from remecli.knowledge.cards.card import join_frontmatter
from remecli.knowledge.dream.timeline import (
    card_day,
    history_lines,
    record_correction,
    with_history,
)
from remecli.notes.frontmatter import read_frontmatter
from remecli.notes.layout import WorkingDir
from remecli.notes.links.parse import link_targets
from remecli.search.keyword import KeywordDoc, KeywordIndex

BUCKETS = ("personal", "procedure", "wiki")
ACTIONS = ("CREATE", "CORROBORATE", "REFINE", "CORRECT")
SOURCES_TITLES = ("sources", "来源")
NODE_FIELD_ORDER = ("name", "description", "kind", "sources", "first_seen", "last_confirmed")
_H2 = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)


class DigestHit(TypedDict):
    """A digest search hit as the dream's model sees it (JSON): a node without its body."""

    path: str
    name: str
    description: str
    kind: str
    status: str
    score: float


@dataclass
class Node:
    """A digest node: relative path, frontmatter and body."""

    rel: str
    meta: dict[str, Any]
    body: str

    def brief(self, score: float = 0.0) -> DigestHit:
        """What a search hit shows: no body."""
        return {
            "path": self.rel,
            "name": str(self.meta.get("name") or Path(self.rel).stem),
            "description": str(self.meta.get("description") or ""),
            "kind": str(self.meta.get("kind") or self.rel.split("/")[1]),
            "status": str(self.meta.get("status") or "active"),
            "score": round(score, 3),
        }


def _day(value: object) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def _first_seen(meta: Mapping[str, object], sources: list[str], today: dt.date) -> dt.date:
    """When the node's claim was first seen: the day of its earliest dated card (a dream may
    consolidate a card weeks after its conversation), or the recorded `first_seen` if earlier,
    else `today`."""
    days = [day for day in (_day(meta.get("first_seen")), card_day(sources, today)) if day]
    return min(days) if days else today


def _new_claim(claim: str, meta: Mapping[str, object], old_meta: Mapping[str, object]) -> str:
    description = str(meta.get("description") or "")
    if description and description != str(old_meta.get("description") or ""):
        return description
    return claim.strip() or description or str(meta.get("name") or "")


def digest_dir(working_dir: WorkingDir) -> Path:
    """`<working_dir>/digest/`."""
    return working_dir.digest_dir


def snapshot(working_dir: WorkingDir) -> dict[str, str]:
    """Text of every digest file (relative path → text)."""
    folder = digest_dir(working_dir)
    found: dict[str, str] = {}
    if folder.is_dir():
        for path in sorted(folder.rglob("*.md")):
            if path.is_file():
                rel = path.relative_to(working_dir.root).as_posix()
                found[rel] = path.read_text(encoding="utf-8", errors="replace")
    return found


def parse_node(rel: str, text: str) -> Node | None:
    """The node in `text`, None when its frontmatter is missing or invalid."""
    note = read_frontmatter(text)
    return Node(rel, dict(note.meta), note.body) if note.has_frontmatter else None


# ---------------------------------------------------------------- search
def search_nodes(nodes: dict[str, str], query: str, limit: int = 5) -> list[DigestHit]:
    """The best `limit` nodes for `query`: the search package's keyword engine (BM25 over the
    body, name and description boosted), on an in-memory index of these nodes."""
    parsed = [node for rel, text in nodes.items() if (node := parse_node(rel, text)) is not None]
    if not parsed or limit <= 0:
        return []
    index = KeywordIndex(None)
    try:
        index.replace([], [_keyword_doc(number, node) for number, node in enumerate(parsed)], [])
        hits = index.search(query, len(parsed))
    finally:
        index.close()
    ranked = sorted(
        ((score, parsed[number]) for number, score in hits if score > 0),
        key=lambda item: (-item[0], item[1].rel),
    )
    return [node.brief(score) for score, node in ranked[:limit]]


def _keyword_doc(number: int, node: Node) -> KeywordDoc:
    title = f"{node.meta.get('name', '')}\n{node.meta.get('description', '')}"
    return KeywordDoc(chunk_id=number, path=node.rel, text=node.body, title=title, source="digest")


# ---------------------------------------------------------------- checks
def sources_links(body: str) -> list[str]:
    """Distinct wikilink targets of the node's `## Sources` section (the last section)."""
    headings = list(_H2.finditer(body))
    if not headings or headings[-1].group(1).strip().lower() not in SOURCES_TITLES:
        return []
    return link_targets(body[headings[-1].end() :])


def node_problem(rel: str, text: str | None) -> str | None:
    """Why `text` at `rel` is not a valid digest node, None when it is."""
    parts = rel.split("/")
    if len(parts) != 3 or parts[0] != "digest" or parts[1] not in BUCKETS:
        return f"{rel} is not digest/<personal|procedure|wiki>/<slug>.md"
    if text is None:
        return f"{rel} was removed"
    node = parse_node(rel, text)
    if node is None:
        return f"{rel} has no valid YAML frontmatter"
    if not str(node.meta.get("name") or "").strip():
        return f"{rel} needs `name` in its frontmatter"
    if not str(node.meta.get("description") or "").strip():
        return f"{rel} needs `description` in its frontmatter"
    headings = [m.group(1).strip().lower() for m in _H2.finditer(node.body)]
    if not headings or headings[-1] not in SOURCES_TITLES:
        return f"{rel} must end with a `## Sources` section of wikilinks to its cards"
    return None


def body_without_sources(text: str) -> str:
    """A node's body up to its `## Sources` section, whitespace-normalized."""
    node = parse_node("digest/x/y.md", text)
    body = node.body if node else text
    headings = list(_H2.finditer(body))
    if headings and headings[-1].group(1).strip().lower() in SOURCES_TITLES:
        body = body[: headings[-1].start()]
    return " ".join(body.split())


# ---------------------------------------------------------------- provenance
def with_provenance(
    rel: str,
    text: str,
    previous: str | None,
    *,
    action: str,
    cards: list[str],
    today: dt.date,
    note: str = "",
    claim: str = "",
) -> str:
    """`text` with every unit card in `## Sources` and the provenance fields set by code; a
    CORRECT also records in `## History` that `note` (the claim that stopped being true) was
    superseded by `claim` (else the node's description when the agent changed it)."""
    node = parse_node(rel, text)
    assert node is not None, "checked by node_problem first"
    body = node.body.rstrip("\n") + "\n"
    missing = [card for card in cards if card not in sources_links(body)]
    body += "".join(f"- [[{card}]]\n" for card in missing)
    old = parse_node(rel, previous) if previous else None
    old_meta = old.meta if old else {}
    meta = dict(node.meta)
    kept = history_lines(old.body) if old else []
    if old is not None and kept:  # code owns the History: an agent's rewrite never drops it
        body = with_history(body, kept, "zh" if "## 历史" in old.body else "en")
    if action == "CORRECT":
        new_claim = _new_claim(claim, meta, old_meta)
        meta["description"] = new_claim  # MEMORY.md's digest block shows what is true now
        body = record_correction(
            body,
            old_claim=note or str(old_meta.get("description") or ""),
            new_claim=new_claim,
            day=card_day(cards, today),
            held_since=_first_seen(old_meta, sources_links(old.body) if old else [], today),
            source=cards[0] if cards else "",
            language="zh" if "## 来源" in body else "en",
            old_sources=sources_links(old.body) if old else [],
        )
    meta["kind"] = rel.split("/")[1]
    meta["sources"] = len(sources_links(body))
    meta["first_seen"] = f"{_first_seen(old_meta, sources_links(body), today):%Y-%m-%d}"
    meta["last_confirmed"] = f"{today:%Y-%m-%d}"
    meta["status"] = "active"  # a correction supersedes a claim (## History), not the node
    history = old_meta.get("contradictions")
    contradictions = list(history) if isinstance(history, list) else []
    if action == "CORRECT":
        source = cards[0] if cards else ""
        contradictions.append({"date": f"{today:%Y-%m-%d}", "source": source, "note": note})
    if contradictions:
        meta["contradictions"] = contradictions
    else:
        meta.pop("contradictions", None)
    ordered = {key: meta[key] for key in NODE_FIELD_ORDER if key in meta}
    ordered.update({key: value for key, value in meta.items() if key not in ordered})
    return join_frontmatter(ordered, body)
