"""What the Elasticsearch store sends: the index mapping, a document per node, and the contract's
conditions as Elasticsearch query DSL. Pure functions (no client), so they are tested without a
server.

Columns are keyword fields; conditions on them become `term` / `range` / `exists` filters. A
metadata key may hold `.` (which Elasticsearch reads as an object path), so metadata is kept as
JSON text and conditions on it are decided in Python (`in_python.matches`) after Elasticsearch
narrowed by the columns. Keyword terms (the project's analyzer) are indexed as whitespace-split
text, so Elasticsearch's own BM25 (k1 1.2, b 0.75, as `in_python.bm25`) scores them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TypedDict

from remecli.vector.filters import Condition
from remecli.vector.node import COLUMNS, MemoryNode
from remecli.vector.values import JSON, JSONObject

TERMS_FIELD = "terms"
VECTOR_FIELD = "vector"


class IndexBody(TypedDict):
    """What `indices.create` is given."""

    settings: JSONObject
    mappings: JSONObject


def index_body(dimensions: int, embedding_model: str = "") -> IndexBody:
    """Settings and mappings of a memory index (one shard: BM25 statistics over every memory)."""
    properties: JSONObject = {name: {"type": "keyword"} for name in COLUMNS}
    properties.update(
        seq={"type": "long"},
        metadata_json={"type": "keyword", "index": False, "doc_values": False},
    )
    properties[TERMS_FIELD] = {"type": "text", "analyzer": "whitespace"}
    properties[VECTOR_FIELD] = {
        "type": "dense_vector",
        "dims": dimensions,
        "index": True,
        "similarity": "cosine",
    }
    return {
        "settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0}},
        "mappings": {
            "dynamic": False,
            "_meta": {"embedding_model": embedding_model or "-"},
            "properties": properties,
        },
    }


def stored_dimensions(mapping: JSONObject, index: str) -> int | None:
    """The `dims` of the vector field in a `get_mapping` answer, if the index has one."""
    found: JSON = mapping
    for key in (index, "mappings", "properties", VECTOR_FIELD, "dims"):
        found = found.get(key) if isinstance(found, dict) else None
    return int(found) if isinstance(found, int | float | str) else None


def document(node: MemoryNode, seq: int, terms: list[str], vector: list[float]) -> JSONObject:
    """The indexed document of a node (empty columns left out: a missing field)."""
    fields = node.stored_fields()
    doc: JSONObject = {k: v for k, v in fields.items() if v is not None}
    doc["seq"] = seq
    doc["metadata_json"] = json.dumps(node.stored_metadata(), ensure_ascii=False)
    doc[TERMS_FIELD] = " ".join(terms)
    doc[VECTOR_FIELD] = list[JSON](vector)
    return doc


class StoredDoc(TypedDict):
    """A document as `mget` returns it (its `_source` without the vector unless asked)."""

    _id: str
    _source: dict[str, object]


def stored_vector(source: Mapping[str, object]) -> list[float] | None:
    """The vector of a document's `_source` (when it was fetched with it)."""
    vector = source.get(VECTOR_FIELD)
    if not isinstance(vector, list):
        return None
    return [float(x) for x in vector if isinstance(x, int | float)]


def node_of(source: Mapping[str, object]) -> tuple[int, MemoryNode, list[str]]:
    """(seq, node, keyword terms) of a stored document's `_source`."""
    record = dict(source)
    metadata = json.loads(str(record.pop("metadata_json", None) or "{}"))
    terms = str(record.pop(TERMS_FIELD, "") or "").split()
    record.pop(VECTOR_FIELD, None)
    seq = int(str(record.pop("seq", 0)))
    return seq, MemoryNode.from_row(record, metadata), terms


def column_filter(cond: Condition) -> JSONObject | None:
    """One condition on a text column as a filter clause, or None when only Python can decide
    it (metadata keys, non-text values). Every clause keeps each node `matches` would keep."""
    if cond.field.is_metadata:
        return None
    name = cond.field.name
    if not cond.is_range:
        if cond.value is None:
            return {"bool": {"must_not": {"exists": {"field": name}}}}
        if isinstance(cond.value, str):
            return {"term": {name: cond.value}}
        return {"match_none": {}}  # a column holds text: a number or a bool never equals it
    bounds: JSONObject = {op: v for op, v in (("gte", cond.lo), ("lte", cond.hi)) if v is not None}
    if any(not isinstance(v, str) for v in bounds.values()):
        return {"match_none": {}}  # text is never inside a numeric range
    return {"range": {name: bounds}} if bounds else {"exists": {"field": name}}


def filter_clauses(conditions: list[Condition]) -> tuple[list[JSON], bool]:
    """The filter clauses of the column conditions, and whether they decide every condition."""
    clauses = [column_filter(cond) for cond in conditions]
    return [c for c in clauses if c is not None], all(c is not None for c in clauses)


def filtered(conditions: list[Condition], must: list[JSON] | None = None) -> JSONObject:
    """A `bool` query of `must` scoring clauses under the column filters (match_all if none)."""
    clauses, _ = filter_clauses(conditions)
    if not clauses and not must:
        return {"match_all": {}}
    body: JSONObject = {"filter": clauses}
    if must:
        body["must"] = must
    return {"bool": body}


def keyword_query(terms: list[str], conditions: list[Condition]) -> JSONObject:
    """Documents holding any of the terms exactly, BM25-scored, under the column filters."""
    wanted = " ".join(sorted(set(terms)))
    return filtered(conditions, [{"match": {TERMS_FIELD: {"query": wanted, "operator": "or"}}}])


def knn_clause(
    vector: list[float], conditions: list[Condition], k: int, candidates: int
) -> JSONObject:
    """The filtered approximate kNN search of `k` neighbours among `candidates` per shard."""
    k = min(k, 10_000)  # Elasticsearch's limit of k and num_candidates
    clause: JSONObject = {
        "field": VECTOR_FIELD,
        "query_vector": list[JSON](vector),
        "k": k,
        "num_candidates": min(10_000, max(k, candidates)),
    }
    clauses, _ = filter_clauses(conditions)
    if clauses:
        clause["filter"] = clauses
    return clause


def cosine_of(score: float) -> float:
    """Elasticsearch's cosine score is (1 + cosine) / 2: the cosine back."""
    return 2.0 * float(score) - 1.0


def same_content_query(digests: list[str]) -> JSONObject:
    """Documents with any of these content hashes."""
    hashes: list[JSON] = [*sorted(set(digests))]
    return {"bool": {"filter": [{"terms": {"content_hash": hashes}}]}}
