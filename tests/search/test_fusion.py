"""Fusion of keyword and vector candidates."""

from __future__ import annotations

import pytest

from remecli.search.fusion import RRF_K, fuse, min_max, rank_scores


def test_min_max_maps_best_to_one_and_worst_to_zero() -> None:
    assert min_max([(1, 12.0), (2, 7.0), (3, 2.0)]) == {1: 1.0, 2: 0.5, 3: 0.0}


def test_min_max_of_equal_scores_or_one_candidate_is_one() -> None:
    assert min_max([(5, 0.3)]) == {5: 1.0}
    assert min_max([(1, 2.0), (2, 2.0)]) == {1: 1.0, 2: 1.0}
    assert min_max([]) == {}


def test_weighted_sum_uses_point_seven_and_point_three() -> None:
    vector = [(1, 0.9), (2, 0.5)]
    keyword = [(2, 10.0), (3, 4.0)]
    fused = {f.chunk_id: f for f in fuse(vector, keyword, "weighted", 0.7)}
    assert fused[1].score == pytest.approx(0.7)
    assert fused[2].score == pytest.approx(0.3)
    assert fused[3].score == pytest.approx(0.0)
    assert fused[1].signals == ["vector"]
    assert sorted(fused[2].signals) == ["bm25", "vector"]


def test_one_side_empty_gives_the_other_side_full_weight() -> None:
    only_keyword = fuse([], [(7, 3.0), (8, 1.0)], "weighted", 0.7)
    assert [(f.chunk_id, f.score, f.signals) for f in only_keyword] == [
        (7, 1.0, ["bm25"]),
        (8, 0.0, ["bm25"]),
    ]
    only_vector = fuse([(4, 0.8)], [], "rrf", 0.7)
    assert only_vector[0].score == pytest.approx(1.0)
    assert fuse([], [], "weighted", 0.7) == []


def test_rrf_rewards_agreement_and_scales_rank_one_to_one() -> None:
    assert rank_scores([(9, 0.1), (3, 0.05)]) == {
        9: 1.0,
        3: pytest.approx((RRF_K + 1) / (RRF_K + 2)),
    }
    fused = fuse([(1, 0.9), (2, 0.8)], [(2, 5.0), (1, 1.0)], "rrf", 0.5)
    assert fused[0].score == pytest.approx(fused[1].score)
    assert fused[0].score < 1.0
    top_both = fuse([(1, 0.9)], [(1, 5.0)], "rrf", 0.7)
    assert top_both[0].score == pytest.approx(1.0)


def test_ties_prefer_more_signals_then_lower_id() -> None:
    fused = fuse([(5, 1.0), (6, 1.0)], [(6, 2.0), (4, 2.0)], "weighted", 0.5)
    assert [f.chunk_id for f in fused] == [6, 4, 5]


def test_keyword_hits_missed_by_the_vector_search_keep_their_real_vector_score() -> None:
    vector = [(1, 0.80), (2, 0.60)]
    keyword = [(3, 9.0), (1, 3.0)]
    plain = {f.chunk_id: f for f in fuse(vector, keyword, "weighted", 0.7)}
    rescored = {f.chunk_id: f for f in fuse(vector, keyword, "weighted", 0.7, [(3, 0.75)])}
    assert plain[3].score == pytest.approx(0.3)
    # 0.75 normalized over the vector scores {0.8, 0.6, 0.75} is 0.75; plus the full BM25 share
    assert rescored[3].score == pytest.approx(0.7 * 0.75 + 0.3)
    assert rescored[3].signals == ["bm25"]
    assert rescored[2].score == pytest.approx(0.0)
    assert [f.chunk_id for f in fuse(vector, keyword, "weighted", 0.7, [(3, 0.75)])][0] == 3


def test_floors_keep_the_weakest_real_candidate_above_zero() -> None:
    fused = {f.chunk_id: f.score for f in fuse([(1, 0.9), (2, 0.5)], [(3, 4.0)], floors=(0.4, 0.0))}
    assert fused[2] == pytest.approx(0.7 * (0.5 - 0.4) / (0.9 - 0.4))
    assert fused[3] == pytest.approx(0.3) and fused[1] == pytest.approx(0.7)
    only_keyword = fuse([], [(7, 3.0), (8, 1.0)], floors=(None, 0.0))
    assert [round(f.score, 3) for f in only_keyword] == [1.0, 0.333]


def test_a_calibrated_vector_side_keeps_its_absolute_scores() -> None:
    """Issue 38: min-max made the best of any vector candidates 1.0, a lone weak one too."""

    def similarity(cosine: float) -> float:  # a scale from 0.80 (nothing) to 0.90 (strong)
        return min(max((cosine - 0.80) / 0.10, 0.0), 1.0)

    weak = fuse([(1, 0.83), (2, 0.81), (3, 0.79)], [], "weighted", 0.5, similarity=similarity)
    assert [(f.chunk_id, round(f.score, 3)) for f in weak] == [(1, 0.3), (2, 0.1)]
    assert fuse([(1, 0.79), (2, 0.78)], [], "weighted", 0.5, similarity=similarity) == []
    assert fuse([(1, 0.79)], [], "rrf", 0.5, similarity=similarity) == []
    both = {
        f.chunk_id: f
        for f in fuse(
            [(1, 0.85)],
            [(1, 4.0), (2, 2.0)],
            "weighted",
            0.5,
            [(2, 0.70)],
            floors=(None, 0.0),
            similarity=similarity,
        )
    }
    assert both[1].score == pytest.approx(0.5 * 0.5 + 0.5)
    assert both[2].score == pytest.approx(0.5 * 0.5) and both[2].signals == ["bm25"]


def test_calibrated_hits_at_one_keep_the_order_of_their_cosines() -> None:
    """Similarities stop at 1; equal scores used to fall back to the chunk id."""

    def similarity(cosine: float) -> float:
        return min(max((cosine - 0.80) / 0.10, 0.0), 1.0)

    fused = fuse([(2, 0.95), (5, 0.99), (7, 0.85)], [], "weighted", 0.5, similarity=similarity)
    assert [(f.chunk_id, round(f.score, 3)) for f in fused] == [(5, 1.0), (2, 1.0), (7, 0.5)]
