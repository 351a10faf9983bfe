"""From candidates to results: fusion, the score floor, duplicates dropped, results built.

A duplicate is a hit whose words are mostly (`DUPLICATE_OVERLAP` of the smaller word set) those
of a better hit, e.g. a note that quotes a transcript: only the better one is kept, so the same
passage does not fill the top.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from remecli.config.search import SearchSettings
from remecli.search.fusion import fuse
from remecli.search.types import Chunk, SearchResult

SNIPPET_CHARS = 700
DUPLICATE_OVERLAP = 0.8
_MIN_WORDS_FOR_DEDUP = 8
_WORD = re.compile(r"\w+")


@dataclass(slots=True)
class Candidates:
    """What each side found: (chunk id, score) lists, best first."""

    keyword: list[tuple[int, float]] = field(default_factory=list)
    vector: list[tuple[int, float]] = field(default_factory=list)
    rescored: list[tuple[int, float]] = field(default_factory=list)
    keyword_floor: float | None = None  # score of the first keyword non-candidate
    vector_floor: float | None = None  # score of the first vector non-candidate


def split_floor(
    hits: list[tuple[int, float]], limit: int, default: float | None
) -> tuple[list[tuple[int, float]], float | None]:
    """`limit + 1` hits → (the first `limit`, the score of the next one or `default`)."""
    if len(hits) > limit:
        return hits[:limit], hits[limit][1]
    return hits, default


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def is_duplicate(words: set[str], kept: list[set[str]]) -> bool:
    """True when `words` mostly repeat one of the `kept` word sets."""
    if len(words) < _MIN_WORDS_FOR_DEDUP:
        return False
    for other in kept:
        if len(other) < _MIN_WORDS_FOR_DEDUP:
            continue
        if len(words & other) >= DUPLICATE_OVERLAP * min(len(words), len(other)):
            return True
    return False


def to_result(chunk: Chunk, score: float, signals: list[str]) -> SearchResult:
    """A search result for one chunk."""
    return SearchResult(
        path=chunk.path,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        score=score,
        snippet=chunk.text[:SNIPPET_CHARS],
        signals=sorted(signals),
        heading_path=chunk.heading_path,
        source=chunk.source,
        session_id=chunk.session_id,
        date=chunk.date,
        name=chunk.name,
        description=chunk.description,
        tags=list(chunk.tags),
    )


def weigh_transcripts(
    found: Candidates, transcript_ids: set[int], weight: float
) -> dict[int, float]:
    """Apply the transcript weight: BM25 scores scaled (and re-sorted) in place; returns the
    factors of the normalized vector scores."""
    if weight == 1.0 or not transcript_ids:
        return {}
    keyword = [(i, s * weight if i in transcript_ids else s) for i, s in found.keyword]
    if found.keyword_floor:
        found.keyword_floor = min(found.keyword_floor, min(s for _, s in keyword))
    found.keyword = sorted(keyword, key=lambda item: -item[1])
    return {i: weight for i in transcript_ids}


def rank(
    found: Candidates,
    get_chunks: Callable[[list[int]], dict[int, Chunk]],
    settings: SearchSettings,
    max_results: int,
    min_score: float,
    transcript_ids: set[int] | None = None,
) -> list[SearchResult]:
    """The best `max_results` distinct hits scoring at least `min_score` (fusion per settings;
    `transcript_ids`: which candidates are transcript chunks, weighed by
    `settings.transcript_weight`)."""
    factors = weigh_transcripts(found, transcript_ids or set(), settings.transcript_weight)
    fused = fuse(
        found.vector,
        found.keyword,
        settings.fusion,
        settings.vector_weight,
        found.rescored,
        settings.normalization,
        factors,
        (found.vector_floor, found.keyword_floor),
    )
    fused = [f for f in fused if f.score >= min_score]
    results: list[SearchResult] = []
    kept_words: list[set[str]] = []
    step = max(max_results * 2, 10)
    for first in range(0, len(fused), step):
        window = fused[first : first + step]
        chunks = get_chunks([f.chunk_id for f in window])
        for item in window:
            chunk = chunks.get(item.chunk_id)
            if chunk is None:
                continue
            words = _words(chunk.text)
            if is_duplicate(words, kept_words):
                continue
            kept_words.append(words)
            results.append(to_result(chunk, item.score, item.signals))
            if len(results) >= max_results:
                return results
    return results
