"""The hand-written BM25 that ranks the Chroma store's keyword search (`in_python.bm25`; why it is
kept rather than a library is in that module's docstring): Lucene's idf, log(1 + (N-n+0.5)/(n+0.5)),
so a term most memories hold still counts for them, k1 1.2, b 0.75, ties in insertion order."""

from __future__ import annotations

import math

import pytest

from remecli.vector.node import MemoryNode
from remecli.vector.stores.in_python import Stored, bm25


def stored(seq: int, terms: list[str]) -> Stored:
    return Stored(seq, MemoryNode("personal", "alice", " ".join(terms)), terms)


def tf_part(tf: int, length: int, average: float) -> float:
    return tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))


def test_scores_are_lucene_bm25_over_the_documents_holding_a_term() -> None:
    once = stored(1, ["deploy", "ship", "friday"])
    twice = stored(2, ["deploy", "deploy", "lunch", "noon"])
    hits = bm25([once, twice, stored(3, ["tea"])], ["deploy"], total_docs=3, limit=5)
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # 2 of 3 memories hold it: still positive
    average = (3 + 4) / 2  # the lengths of the documents that hold a term
    assert [(row.seq, score) for row, score in hits] == [
        (2, pytest.approx(idf * tf_part(2, 4, average))),
        (1, pytest.approx(idf * tf_part(1, 3, average))),
    ]


def test_ties_keep_the_insertion_order_and_limit_cuts() -> None:
    later, earlier = stored(9, ["tea"]), stored(4, ["tea"])
    hits = bm25([later, earlier, stored(5, ["tea"])], ["tea", "tea"], total_docs=10, limit=2)
    assert [row.seq for row, _ in hits] == [4, 5]
    assert bm25([later], ["coffee"], total_docs=10, limit=2) == []
