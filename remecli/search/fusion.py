"""Fusing keyword and vector candidates: normalized weighted sum, or reciprocal rank fusion.

The weighted sum normalizes each side by min-max over its candidates (`normalization="min-max"`:
the weakest candidate of a side gets 0 from it) or by the side's best score
(`normalization="max"`: BM25 / best BM25 and cosine / best cosine, so a real hit never reads 0).
All methods give scores in [0, 1]. When one side has no candidates (no embedder, or no word of
the query occurs), the other side carries the full weight, so a keyword-only hit still scores 1.
Ties are broken by the number of signals, then by chunk id (deterministic).

With a `similarity` (a calibrated embedder, `calibration.py`) the vector side is not scaled
among its candidates: each cosine becomes its calibrated similarity, the same for one chunk
whatever else was found, and a vector hit at 0 (no closer to the query than ordinary text) is
no candidate. So a query that matches nothing finds nothing, and a lone weak vector hit reads
weak instead of 1.

With a `keyword_weight` (`KeywordIndex.query_weight`) the keyword side is absolute too: a BM25
score over what a chunk holding every query term once scores (`keyword_similarity`), so the
best keyword hit of an off-topic query (one common word of it found) reads low instead of 1.
When both sides are absolute they keep their weights even when one found nothing: a hit only
one side finds has 0 from the other, whatever the query.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

RRF_K = 60


@dataclass(slots=True)
class Fused:
    """A fused candidate: chunk id, final score, which sides found it, and its cosine (0 when
    unknown), which orders equal scores: calibrated similarities stop at 1, cosines do not.
    `match`: the score as fused, before weights and boosts (the transcript weight, the date
    and project boosts) change `score`: how well the chunk matches (None: as `score`)."""

    chunk_id: int
    score: float
    signals: list[str] = field(default_factory=list)
    cosine: float = 0.0
    match: float | None = None

    def strength(self) -> float:
        """How well the chunk matches the query, whatever the preferences."""
        return self.score if self.match is None else self.match

    def rank(self) -> tuple[float, int, float, int]:
        """Sort key, best first: score, number of signals, cosine, then chunk id."""
        return (-self.score, -len(self.signals), -self.cosine, self.chunk_id)


def min_max(scores: list[tuple[int, float]], floor: float | None = None) -> dict[int, float]:
    """Scale scores to [0, 1] (best = 1, worst = 0; all equal → all 1). A `floor` below the
    worst score (the first score that did not make the candidates) takes the worst's place."""
    if not scores:
        return {}
    values = [s for _, s in scores]
    low, high = min(values), max(values)
    if floor is not None and floor < low:
        low = floor
    if high - low <= 1e-12:
        return {i: 1.0 for i, _ in scores}
    return {i: (s - low) / (high - low) for i, s in scores}


def max_scaled(scores: list[tuple[int, float]]) -> dict[int, float]:
    """Scale scores by the best one (best = 1; negatives count as 0)."""
    if not scores:
        return {}
    high = max(s for _, s in scores)
    if high <= 1e-12:
        return {i: 1.0 for i, _ in scores}
    return {i: max(s, 0.0) / high for i, s in scores}


def keyword_similarity(score: float, weight: float) -> float:
    """A BM25 score on an absolute [0, 1) scale: 1 - exp(-score / weight), `weight` being the
    score of a chunk holding every query term once (→ 0.63); half of the query's weight →
    0.39, twice it → 0.86. Monotone, so the keyword side's order is kept."""
    if weight <= 0:
        return 0.0
    return 1.0 - math.exp(-max(score, 0.0) / weight)


def rank_scores(scores: list[tuple[int, float]], k: int = RRF_K) -> dict[int, float]:
    """Reciprocal-rank scores scaled so rank 1 = 1 (input is best first)."""
    ranked: dict[int, float] = {}
    for rank, (chunk_id, _) in enumerate(scores, start=1):
        ranked.setdefault(chunk_id, (k + 1) / (k + rank))
    return ranked


def fuse(
    vector: list[tuple[int, float]],
    keyword: list[tuple[int, float]],
    method: str = "weighted",
    vector_weight: float = 0.7,
    vector_rescored: list[tuple[int, float]] | None = None,
    normalization: str = "min-max",
    vector_factors: dict[int, float] | None = None,
    floors: tuple[float | None, float | None] = (None, None),
    similarity: Callable[[float], float] | None = None,
    keyword_weight: float | None = None,
) -> list[Fused]:
    """Combine (chunk id, score) lists from both sides, best first.

    `vector_rescored`: exact vector scores of keyword hits the vector search did not return;
    the weighted sum uses them instead of 0 (they add no "vector" signal; RRF ignores them).
    `vector_factors`: per-chunk multipliers of the normalized vector score (source weights).
    `floors`: (vector, keyword) scores of the first non-candidate of each side, so min-max
    gives a real candidate more than 0 (the `score 0.000 [vector]` artifact).
    `similarity`: cosine → calibrated similarity in [0, 1] (module doc); replaces the vector
    side's normalization, and a vector hit it maps to 0 is dropped (RRF too).
    `keyword_weight`: the query's keyword weight (module doc); replaces the keyword side's
    normalization by `keyword_similarity`. With both, each side keeps its weight.
    """
    extra: dict[int, float] = {}
    if similarity is not None:
        vector = [(i, s) for i, s in vector if similarity(s) > 0]
    if method == "rrf":
        sides = [
            ("vector", rank_scores(vector), vector_weight),
            ("bm25", rank_scores(keyword), 1.0 - vector_weight),
        ]
    else:
        hits = {i for i, _ in vector}
        rescored = [(i, s) for i, s in (vector_rescored or []) if i not in hits]
        vector_scores = _normalized(vector + rescored, normalization, floors[0]) if vector else {}
        keyword_scores = _normalized(keyword, normalization, floors[1])
        if keyword_weight is not None:
            keyword_scores = {i: keyword_similarity(s, keyword_weight) for i, s in keyword}
        if similarity is not None and vector:  # the vector side on its absolute scale instead
            vector_scores = {i: similarity(s) for i, s in vector + rescored}
        extra = {i: vector_scores.pop(i) for i, _ in rescored if i in vector_scores}
        sides = [
            ("vector", vector_scores, vector_weight),
            ("bm25", keyword_scores, 1.0 - vector_weight),
        ]
    for scores in (sides[0][1], extra):  # source weights scale the vector side
        for chunk_id, factor in (vector_factors or {}).items():
            if chunk_id in scores:
                scores[chunk_id] *= factor
    absolute = similarity is not None and keyword_weight is not None and method != "rrf"
    fused = _weighted_sum(sides, extra, absolute)
    if similarity is not None:
        for chunk_id, cosine in [*vector, *(vector_rescored or [])]:
            if chunk_id in fused:
                fused[chunk_id].cosine = cosine
    for item in fused.values():
        item.match = item.score
    return sorted(fused.values(), key=Fused.rank)


def _normalized(
    scores: list[tuple[int, float]], normalization: str, floor: float | None
) -> dict[int, float]:
    """One side's raw scores on [0, 1]: `max` scaling, or min-max above `floor`."""
    return max_scaled(scores) if normalization == "max" else min_max(scores, floor)


def _weighted_sum(
    sides: list[tuple[str, dict[int, float], float]], extra: dict[int, float], absolute: bool
) -> dict[int, Fused]:
    """Each chunk's score: every side's score times that side's share of the weight.

    Only sides with scores share the weight, unless the scores are `absolute` (calibrated), when
    an empty side still holds its share. `extra` (rescored vector scores) count on the vector
    side without naming it as a signal.
    """
    present = [(name, scores, weight) for name, scores, weight in sides if scores or absolute]
    total_weight = sum(weight for _, _, weight in present)
    if not any(scores for _, scores, _ in present) and not extra:
        return {}
    fused: dict[int, Fused] = {}
    for name, scores, weight in present:
        share = weight / total_weight if total_weight > 0 else 1.0 / len(present)
        for chunk_id, value in scores.items():
            item = fused.setdefault(chunk_id, Fused(chunk_id, 0.0))
            item.score += share * value
            item.signals.append(name)
        if name == "vector":
            for chunk_id, value in extra.items():
                fused.setdefault(chunk_id, Fused(chunk_id, 0.0)).score += share * value
    return fused


def merge_parts(whole: list[Fused], parts: list[list[Fused]]) -> list[Fused]:
    """The whole question's fused hits interleaved with its parts': the best of the whole, the
    best of each part, the second of the whole, … (a chunk found again keeps its first place
    and gains the signals). A score never exceeds the one before it, so the order holds."""
    merged: dict[int, Fused] = {}
    lists = [whole, *parts]
    for depth in range(max(len(found) for found in lists)):
        for found in lists:
            if depth >= len(found):
                continue
            item = found[depth]
            if item.chunk_id in merged:
                known = merged[item.chunk_id]
                known.signals = sorted(set(known.signals) | set(item.signals))
                continue
            ceiling = min((f.score for f in merged.values()), default=item.score)
            score = min(item.score, ceiling)
            merged[item.chunk_id] = Fused(
                item.chunk_id, score, item.signals, item.cosine, item.strength()
            )
    return list(merged.values())
