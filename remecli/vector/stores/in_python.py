"""The contract's filters, sort order and keyword scoring evaluated in Python, with the same
meaning as the SQL stores give them: for engines whose own query language cannot say all of it
(missing values, ranges over text, any metadata key). An engine narrows the candidates with what
it can say; these functions decide.

`bm25` is hand-written on purpose (decided in session 17, issue 40). It ranks the Chroma store's
keyword search, the one engine here without BM25 of its own: chromadb 1.5's ranked `search` is
"not implemented for Local Chroma" (it raises NotImplementedError on an embedded or `chroma run`
collection), and `$contains` only finds the documents. It needs just those documents and the
collection's count, one `get` per search. The alternatives were worse: the tantivy index
(`search/keyword.py`) indexes the notes of one working dir, and a second index beside a Chroma
collection that other processes write through its server would drift from it; rank-bm25 and
bm25s index the whole corpus (every memory of the target fetched per search), and rank-bm25's
idf, log((N-n+0.5)/(n+0.5)) floored at a fraction of the mean, ranks a term most memories hold
differently from Elasticsearch's (Lucene's) log(1+(N-n+0.5)/(n+0.5)), which this one uses; SQLite's
FTS5 bm25() lives inside the local store's database. tests/vector/test_in_python_bm25.py pins it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeGuard

from remecli.vector.filters import Condition, FieldRef, field_ref
from remecli.vector.node import MemoryNode
from remecli.vector.values import JSON, Scalar


@dataclass
class Stored:
    """A node as an engine holds it: its insertion order and its analyzed keyword terms."""

    seq: int
    node: MemoryNode
    terms: list[str]


def value_of(node: MemoryNode, ref: FieldRef) -> JSON:
    """A column (None when empty and nullable) or a metadata value (None when missing)."""
    if ref.is_metadata:
        return node.stored_metadata().get(ref.name)
    return node.stored_fields().get(ref.name)


def _numeric(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float)


def _in_range(value: JSON, bound: Scalar, above: bool) -> bool:
    """Whether `value` is on the inner side of `bound`: text against text, numbers against
    numbers (any other pair is out of range)."""
    if isinstance(bound, str) and isinstance(value, str):
        return value >= bound if above else value <= bound
    if _numeric(bound) and _numeric(value):
        return value >= bound if above else value <= bound
    return False


def matches(node: MemoryNode, conditions: list[Condition]) -> bool:
    """Whether the node meets every condition (None = missing; ranges compare like types)."""
    for cond in conditions:
        value = value_of(node, cond.field)
        if not cond.is_range:
            if cond.value is None:
                if value is not None:
                    return False
            elif value is None or _numeric(value) != _numeric(cond.value) or value != cond.value:
                return False
            continue
        if cond.lo is not None and not _in_range(value, cond.lo, True):
            return False
        if cond.hi is not None and not _in_range(value, cond.hi, False):
            return False
    return True


def _rank(value: JSON) -> tuple[int, float | str]:
    """SQLite's order across types: numbers before text (other values as their JSON text)."""
    if _numeric(value):
        return (0, float(value))
    if isinstance(value, str):
        return (1, value)
    import json

    return (1, json.dumps(value, ensure_ascii=False))


def ordered(
    items: Iterable[Stored], sort_key: str | None, reverse: bool, limit: int | None
) -> list[MemoryNode]:
    """Nodes sorted by `sort_key` (missing values last in both directions, ties by insertion
    order in the same direction), at most `limit`."""
    by_seq = sorted(items, key=lambda item: item.seq, reverse=reverse)
    if sort_key:
        ref = field_ref(sort_key)
        present = [item for item in by_seq if value_of(item.node, ref) is not None]
        missing = [item for item in by_seq if value_of(item.node, ref) is None]
        present.sort(key=lambda item: _rank(value_of(item.node, ref)), reverse=reverse)
        by_seq = present + missing
    chosen = by_seq if limit is None else by_seq[: max(0, int(limit))]
    return [item.node for item in chosen]


def bm25(
    candidates: list[Stored], terms: list[str], total_docs: int, limit: int
) -> list[tuple[Stored, float]]:
    """Okapi BM25 (k1 1.2, b 0.75) of the candidates that hold any term exactly, best first.

    `candidates` must include every document of the searched set that holds a term (so document
    frequencies are exact); `total_docs` is the size of that set. The average length is that of
    the documents holding a term (the only ones fetched), not of the whole set."""
    wanted = set(terms)
    counted = [(item, Counter(t for t in item.terms if t in wanted)) for item in candidates]
    counted = [(item, counts) for item, counts in counted if counts]
    if not counted:
        return []
    frequency = Counter(term for _, counts in counted for term in counts)
    lengths = [len(item.terms) for item, _ in counted]
    average = max(1.0, sum(lengths) / len(lengths))
    total = max(total_docs, len(counted))
    scored: list[tuple[Stored, float]] = []
    for (item, counts), length in zip(counted, lengths, strict=True):
        score = 0.0
        for term, tf in counts.items():
            idf = math.log(1 + (total - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))
        scored.append((item, score))
    scored.sort(key=lambda pair: (-pair[1], pair[0].seq))
    return scored[:limit]


EngineHits = tuple[int, list[tuple[MemoryNode, float]]]


def widening_search(
    limit: int, total: int, conditions: list[Condition], fetch: Callable[[int], EngineHits]
) -> list[MemoryNode]:
    """The `limit` best engine hits that meet `conditions`, `score` set, best first.

    `fetch(n)` asks the engine for its best `n`: how many it returned, and those it keeps as
    (node, score). It is asked for `limit`, then four times as many while the filters it cannot
    apply leave fewer than `limit` (at most `total`, the size of the collection)."""
    wanted = min(limit, total)
    while wanted > 0:
        returned, found = fetch(wanted)
        hits: list[MemoryNode] = []
        for node, score in found:
            if matches(node, conditions):
                node.score = score
                hits.append(node)
        if len(hits) >= limit or returned < wanted or wanted >= total:
            return hits[:limit]
        wanted = min(total, wanted * 4)
    return []
