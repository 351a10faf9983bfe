"""Digest nodes `digest/{personal,procedure,wiki}/<slug>.md`: scan, search, check, provenance.

Search is a direct scan of the digest (it is small: short nodes, one per durable idea) scored
with BM25 over name, description and body, analyzed like the memory index (English stems, CJK
bigrams). The provenance fields of a node's frontmatter (`kind`, `sources`, `first_seen`,
`last_confirmed`, `status`, `contradictions`) are set here, by code, from the dream's actions.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from remecli.knowledge.cards import CardError, join_frontmatter, slugify, split_frontmatter
from remecli.notes.layout import WorkingDir
from remecli.search.analysis import Analyzer

BUCKETS = ("personal", "procedure", "wiki")
ACTIONS = ("CREATE", "CORROBORATE", "REFINE", "CORRECT")
SOURCES_TITLES = ("sources", "来源")
NODE_FIELD_ORDER = ("name", "description", "kind", "sources", "first_seen", "last_confirmed")
_WIKILINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]")
_H2 = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)
_BM25_K1, _BM25_B = 1.5, 0.75


@dataclass
class Node:
    """A digest node: relative path, frontmatter and body."""

    rel: str
    meta: dict[str, Any]
    body: str

    def brief(self, score: float = 0.0) -> dict[str, Any]:
        """What a search hit shows: no body."""
        return {
            "path": self.rel,
            "name": str(self.meta.get("name") or Path(self.rel).stem),
            "description": str(self.meta.get("description") or ""),
            "kind": str(self.meta.get("kind") or self.rel.split("/")[1]),
            "status": str(self.meta.get("status") or "active"),
            "score": round(score, 3),
        }


def digest_dir(working_dir: WorkingDir) -> Path:
    """`<working_dir>/digest/`."""
    return working_dir.digest_dir


def node_rel(bucket: str, name: str) -> str:
    """Where a node named `name` of `bucket` lives."""
    return f"digest/{bucket}/{slugify(name) or 'node'}.md"


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
    try:
        meta, body = split_frontmatter(text)
    except CardError:
        return None
    return None if meta is None else Node(rel, meta, body)


# ---------------------------------------------------------------- search
def _analyzer() -> Analyzer:
    from remecli.search.analysis import make_analyzer

    return make_analyzer()


def _terms(analyzer: Analyzer, text: str) -> list[str]:
    return [term for term in analyzer(text) if term]


def search_nodes(nodes: dict[str, str], query: str, limit: int = 5) -> list[dict[str, Any]]:
    """The best `limit` nodes for `query` (BM25 over name, description and body)."""
    analyzer = _analyzer()
    docs: list[tuple[Node, Counter[str], int]] = []
    for rel, text in nodes.items():
        node = parse_node(rel, text)
        if node is None:
            continue
        words = f"{node.meta.get('name', '')} {node.meta.get('description', '')} {node.body}"
        terms = _terms(analyzer, words)
        docs.append((node, Counter(terms), len(terms)))
    if not docs:
        return []
    average = sum(length for _, _, length in docs) / len(docs) or 1.0
    wanted = set(_terms(analyzer, query))
    frequency = Counter(term for _, counts, _ in docs for term in wanted if term in counts)
    scored: list[tuple[float, Node]] = []
    for node, counts, length in docs:
        score = 0.0
        for term in wanted:
            tf = counts.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            norm = tf + _BM25_K1 * (1 - _BM25_B + _BM25_B * length / average)
            score += idf * tf * (_BM25_K1 + 1) / norm
        if score > 0:
            scored.append((score, node))
    scored.sort(key=lambda item: (-item[0], item[1].rel))
    return [node.brief(score) for score, node in scored[:limit]]


# ---------------------------------------------------------------- checks
def sources_links(body: str) -> list[str]:
    """Distinct wikilink targets of the node's `## Sources` section (the last section)."""
    headings = list(_H2.finditer(body))
    if not headings or headings[-1].group(1).strip().lower() not in SOURCES_TITLES:
        return []
    seen: dict[str, None] = {}
    for match in _WIKILINK.finditer(body[headings[-1].end() :]):
        seen.setdefault(match.group(1).strip(), None)
    return list(seen)


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
) -> str:
    """`text` with every unit card in `## Sources` and the provenance fields set by code."""
    node = parse_node(rel, text)
    assert node is not None, "checked by node_problem first"
    body = node.body.rstrip("\n") + "\n"
    missing = [card for card in cards if card not in sources_links(body)]
    body += "".join(f"- [[{card}]]\n" for card in missing)
    old = parse_node(rel, previous) if previous else None
    old_meta = old.meta if old else {}
    meta = dict(node.meta)
    meta["kind"] = rel.split("/")[1]
    meta["sources"] = len(sources_links(body))
    meta["first_seen"] = str(old_meta.get("first_seen") or f"{today:%Y-%m-%d}")
    meta["last_confirmed"] = f"{today:%Y-%m-%d}"
    meta["status"] = "contradicted" if action == "CORRECT" else "active"
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
