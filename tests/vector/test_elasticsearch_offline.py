"""The elasticsearch backend without a server (none can be installed from PyPI, npm or Debian):
it warns that it is experimental, fails with one clear line when the server is unreachable,
accepts the reference's config keys, and translates the contract's conditions into Elasticsearch
query DSL that keeps every node the shared Python filters keep. The store contract itself runs
on it in test_store_contract.py when REMECLI_TEST_ELASTICSEARCH_URL names a server."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from remecli.vector.filters import compile_filters
from remecli.vector.node import MemoryNode
from remecli.vector.stores import VectorStoreError, make_store
from remecli.vector.stores import elasticsearch_query as q

UNREACHABLE = "http://127.0.0.1:1"


def test_configuring_it_warns_that_it_is_experimental(tmp_path: Path) -> None:
    with (
        pytest.warns(UserWarning, match="elasticsearch vector store is experimental"),
        pytest.raises(VectorStoreError),
    ):
        make_store({"backend": "elasticsearch", "hosts": UNREACHABLE}, tmp_path, 8)


def test_an_unreachable_server_fails_with_one_clear_line(tmp_path: Path) -> None:
    config = {
        "backend": "elasticsearch",
        "hosts": [UNREACHABLE],
        "basic_auth": ["elastic", "hunter2secret"],
        "verify_certs": False,
        "headers": {"x-team": "memory"},
        "collection_name": "ReMe_Memories",
        "db_path": str(tmp_path / "unused"),
        "request_timeout": 2,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(VectorStoreError) as info:
            make_store(config, tmp_path, 8)
    message = str(info.value)
    assert "cannot reach Elasticsearch at ['http://127.0.0.1:1']" in message
    assert "hunter2secret" not in message and "\n" not in message
    assert not (tmp_path / "unused").exists()


def test_unknown_options_are_refused(tmp_path: Path) -> None:
    with (
        warnings.catch_warnings(),
        pytest.raises(VectorStoreError, match=r"unknown option\(s\).*: colour"),
    ):
        warnings.simplefilter("ignore")
        make_store({"backend": "elasticsearch", "colour": "red"}, tmp_path, 8)


def test_the_index_maps_columns_terms_and_a_cosine_vector() -> None:
    body = q.index_body(1024, "text-embedding-v4")
    properties = body["mappings"]["properties"]
    assert properties["vector"] == {
        "type": "dense_vector",
        "dims": 1024,
        "index": True,
        "similarity": "cosine",
    }
    assert properties["memory_target"] == {"type": "keyword"}
    assert properties["terms"] == {"type": "text", "analyzer": "whitespace"}
    assert properties["metadata_json"]["index"] is False
    assert body["mappings"]["dynamic"] is False
    assert body["settings"]["index"]["number_of_shards"] == 1
    mapping = {"reme": {"mappings": {"properties": properties}}}
    assert q.stored_dimensions(mapping, "reme") == 1024
    assert q.stored_dimensions({"reme": {"mappings": {}}}, "reme") is None


def test_a_document_round_trips_every_field_and_odd_metadata_keys() -> None:
    node = MemoryNode(
        memory_type="personal",
        memory_target="alice",
        content="Alice prefers tabs · 喜欢制表符",
        when_to_use="formatting",
        message_time="2026-02-28 10:00:00",
        metadata={"a.b": 1, "x[0]": {"n": [1, 2]}, "o'k": 'it\'s "fine"'},
    )
    doc = q.document(node, 42, ["alic", "prefer", "tab"], [0.5, 0.5])
    assert doc["terms"] == "alic prefer tab" and doc["vector"] == [0.5, 0.5]
    assert "metadata" not in doc and "a.b" not in doc  # odd keys never become fields
    seq, again, terms = q.node_of(doc)
    assert (seq, terms) == (42, ["alic", "prefer", "tab"])
    assert again.to_dict() == node.to_dict()
    assert q.stored_vector(doc) == [0.5, 0.5]
    assert q.stored_vector({k: v for k, v in doc.items() if k != "vector"}) is None  # not fetched
    plain = q.document(MemoryNode("personal", "bob", "x"), 1, [], [1.0])
    assert "message_time" not in plain  # empty columns are missing fields (`exists` filters)


def test_column_conditions_become_filters_and_metadata_stays_in_python() -> None:
    conditions = compile_filters(
        {
            "memory_target": "alice",
            "message_time": None,
            "time_created": ["2026-01-02", None],
            "priority": [1, 3],
            "metadata.memory_type": "x",
        }
    )
    clauses, exact = q.filter_clauses(conditions)
    assert exact is False  # two metadata conditions are decided in Python
    assert clauses == [
        {"term": {"memory_target": "alice"}},
        {"bool": {"must_not": {"exists": {"field": "message_time"}}}},
        {"range": {"time_created": {"gte": "2026-01-02 00:00:00"}}},
    ]
    assert q.filter_clauses(compile_filters({"memory_type": "personal"}))[1] is True
    assert q.filtered([]) == {"match_all": {}}
    assert q.filtered(compile_filters({"tag": "x"})) == {"match_all": {}}


def test_conditions_no_text_column_can_meet_match_nothing() -> None:
    for filters in ({"content": 3}, {"author": True}, {"content": [1, 2]}):
        [clause] = q.filter_clauses(compile_filters(filters))[0]
        assert clause == {"match_none": {}}, filters


def test_keyword_and_knn_queries_carry_the_filters() -> None:
    alice = compile_filters({"memory_target": "alice", "tag": "x"})
    keyword = q.keyword_query(["tea", "green", "tea"], alice)
    assert keyword == {
        "bool": {
            "filter": [{"term": {"memory_target": "alice"}}],
            "must": [{"match": {"terms": {"query": "green tea", "operator": "or"}}}],
        }
    }
    knn = q.knn_clause([1.0, 0.0], alice, 5, 100)
    assert knn == {
        "field": "vector",
        "query_vector": [1.0, 0.0],
        "k": 5,
        "num_candidates": 100,
        "filter": [{"term": {"memory_target": "alice"}}],
    }
    assert "filter" not in q.knn_clause([1.0], [], 500, 100)
    assert q.knn_clause([1.0], [], 500, 100)["num_candidates"] == 500
    huge = q.knn_clause([1.0], [], 20_000, 40_000)  # Elasticsearch refuses more than 10,000
    assert (huge["k"], huge["num_candidates"]) == (10_000, 10_000)
    assert q.cosine_of(1.0) == 1.0 and q.cosine_of(0.5) == 0.0 and q.cosine_of(0.0) == -1.0
    assert q.same_content_query(["b", "a", "b"]) == {
        "bool": {"filter": [{"terms": {"content_hash": ["a", "b"]}}]}
    }
