"""From candidates to results: fusion, duplicates dropped, diversity across files, results.

A duplicate is a hit whose words are mostly (`DUPLICATE_OVERLAP` of the smaller word set) those
of a better hit, e.g. a note that quotes a transcript: only the better one is kept, so the same
passage does not fill the top.

Scores are absolute (`fusion`), so what they say holds across queries: a hit scoring under
`NO_MATCH` has nothing of the query (it would read 0.00) and is not returned; one matching
under `WEAK_SCORE` (`Fused.strength`: before the transcript weight and the boosts, which are
preferences, not matches) is returned marked `weak` (`benchmarks/score_floor.py` measures
where off-topic queries' best hits and real questions' answers fall).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from remecli.config.search import SearchSettings
from remecli.search.dates import Window, chunk_day
from remecli.search.fusion import Fused, fuse
from remecli.search.hits import SearchHit
from remecli.search.snippets import SNIPPET_CHARS
from remecli.search.types import Chunk

DUPLICATE_OVERLAP = 0.8
NO_MATCH = 0.01
WEAK_SCORE = 0.3
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
    similarity: Callable[[float], float] | None = None  # cosine → calibrated, when known
    keyword_weight: float | None = None  # the query's BM25 weight (`KeywordIndex.query_weight`)


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


def head(text: str) -> str:
    """The first `SNIPPET_CHARS` of a chunk's text."""
    return text[:SNIPPET_CHARS]


def to_result(
    chunk: Chunk,
    score: float,
    signals: list[str],
    snippet: Callable[[str], str] = head,
    weak: bool = False,
) -> SearchHit:
    """The hit of one chunk (with its text); `snippet` picks what of its text it shows."""
    return SearchHit(
        path=chunk.path,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        score=score,
        snippet=snippet(chunk.text),
        signals=sorted(signals),
        heading_path=chunk.heading_path,
        source=chunk.source,
        session_id=chunk.session_id,
        date=chunk.date,
        name=chunk.name,
        description=chunk.description,
        tags=list(chunk.tags),
        project=chunk.project,
        weak=weak,
        text=chunk.text,
    )


def fused_candidates(
    found: Candidates,
    settings: SearchSettings,
    transcript_ids: set[int] | None = None,
    project_ids: set[int] | None = None,
) -> list[Fused]:
    """Both sides' candidates fused per settings, best first. A transcript chunk's fused score
    is then scaled by `settings.transcript_weight` (`transcript_ids`: which candidates are
    transcript chunks): both sides alike, so a memory of transcripts only ranks as with 1.0
    (scaling one side before fusion let min-max undo it on BM25 alone, which quietly cut the
    vector side's weight to 0.6 of its share there). With `project_ids` (the candidates of the
    current project; None when no project is preferred) those gain `settings.project_boost`
    by the rule of every boost (`lifted`): the mild preference, scores kept in [0, 1]."""
    fused = fuse(
        found.vector,
        found.keyword,
        settings.fusion,
        settings.vector_weight,
        found.rescored,
        settings.normalization,
        None,
        (found.vector_floor, found.keyword_floor),
        found.similarity,
        found.keyword_weight,
    )
    weight = settings.transcript_weight
    if transcript_ids and weight != 1.0:
        for item in fused:
            if item.chunk_id in transcript_ids:
                item.score *= weight
        fused.sort(key=Fused.rank)
    if project_ids is not None and settings.project_boost > 0:
        fused = lifted(fused, project_ids, settings.project_boost)
    return fused


def lifted(fused: list[Fused], ids: set[int], boost: float, signal: str = "") -> list[Fused]:
    """`fused` re-ranked with the chunks in `ids` lifted: each gains `boost` (and `signal`,
    when given), then every score is divided by 1 + `boost`, so scores stay in [0, 1] and a
    lifted hit passes another that scored less than `boost` more; when none is in `ids`,
    `fused` is returned as it is (the best hit still reads 1). The one rule of the date and
    project boosts."""
    if not any(item.chunk_id in ids for item in fused):
        return fused
    for item in fused:
        if item.chunk_id in ids:
            item.score += boost
            if signal:
                item.signals = sorted({*item.signals, signal})
        item.score /= 1.0 + boost
    return sorted(fused, key=Fused.rank)


def date_boosted(
    fused: list[Fused], chunks: dict[int, Chunk], windows: list[Window], boost: float
) -> list[Fused]:
    """`fused` re-ranked for a question about a day or month: a chunk dated in one of the
    `windows` is lifted by `boost` (`lifted`, signal "date")."""
    if not windows or boost <= 0:
        return fused
    dated: set[int] = set()
    for item in fused:
        chunk = chunks.get(item.chunk_id)
        day = chunk_day(chunk.date, chunk.heading_path) if chunk is not None else None
        if day is not None and any(window.matches(day) for window in windows):
            dated.add(item.chunk_id)
    return lifted(fused, dated, boost, "date")


def select(
    fused: list[Fused],
    get_chunks: Callable[[list[int]], dict[int, Chunk]],
    max_results: int,
    diversity: float = 0.0,
    snippet: Callable[[str], str] = head,
) -> list[SearchHit]:
    """The best `max_results` distinct hits of `fused` (best first).

    A near-duplicate of a better hit is dropped, and so is a hit whose line range a better
    hit already has (the pieces of one long line are chunks of the same range). With
    `diversity` > 0 each pick is the candidate whose fused score minus `diversity` × (hits
    already taken from its file) is highest, and that is its score, so scores still fall
    from the first hit down; a hit under `NO_MATCH` ends the list. `snippet`
    picks what of each chunk's text a result shows (`snippets.SnippetPicker`).
    """
    chunks = get_chunks([f.chunk_id for f in fused])
    pool = [(item, chunks[item.chunk_id]) for item in fused if item.chunk_id in chunks]
    results: list[SearchHit] = []
    kept_words: list[set[str]] = []
    taken: dict[str, int] = {}
    ranges: set[tuple[str, int, int]] = set()

    def adjusted(k: int) -> float:
        item, chunk = pool[k]
        return item.score - diversity * taken.get(chunk.path, 0)

    while pool and len(results) < max_results:
        best = max(range(len(pool)), key=adjusted) if diversity > 0 else 0
        score = adjusted(best)
        item, chunk = pool.pop(best)
        if score < NO_MATCH:  # the rest scores less still (diversity: no more than now)
            break
        words, where = _words(chunk.text), (chunk.path, chunk.start_line, chunk.end_line)
        if where in ranges or is_duplicate(words, kept_words):
            continue
        kept_words.append(words)
        ranges.add(where)
        taken[chunk.path] = taken.get(chunk.path, 0) + 1
        weak = item.strength() < WEAK_SCORE
        results.append(to_result(chunk, score, item.signals, snippet, weak))
    return results
