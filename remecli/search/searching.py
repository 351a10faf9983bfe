"""One search over opened parts: keyword and vector candidates, fused and ranked.

A multi-part question (`decompose.sub_queries`) also searches each part when
`query_parts` is on; the parts' hits are interleaved with the whole question's, so the best
piece of every part reaches the top. A question naming a day or month lifts the hits dated
then (`date_boost`, see `dates`).

A request naming a `project` searches only chunks recorded in it; one that names none prefers
the current project's hits a little (`ranking.fused_candidates`, `search.project_boost`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from remecli.search.calibration import Calibration
from remecli.search.dates import question_windows
from remecli.search.decompose import sub_queries
from remecli.search.embedders import EmbeddingError
from remecli.search.fusion import Fused, merge_parts
from remecli.search.hits import SearchHit
from remecli.search.keyword import Filters
from remecli.search.parts import IndexParts
from remecli.search.ranking import (
    Candidates,
    date_boosted,
    fused_candidates,
    select,
    split_floor,
)
from remecli.search.request import SearchRequest
from remecli.search.snippets import SnippetPicker
from remecli.search.transcripts import SOURCE as TRANSCRIPT
from remecli.search.types import SearchVariant


def search_parts(
    parts: IndexParts,
    request: SearchRequest,
    filters: Filters,
    variant: SearchVariant,
    query_vector: Callable[[str], np.ndarray] | None,
    on_embedding_error: Callable[[str], None],
    calibration: Calibration | None = None,
) -> list[SearchHit]:
    """The ranked hits of a resolved `request` (`query_vector` None: keyword only); an embedding error
    is reported to `on_embedding_error` and the search goes on by keyword. `calibration`:
    the embedder's, so the vector side's scores mean the same from one query to the next."""
    settings = variant.settings
    limit = request.limit * settings.candidate_multiplier
    if request.project:  # the index has no project field: the store names the chunks allowed
        allowed = parts.store.ids_where(
            filters.source, filters.since, filters.until, request.project
        )
        filters = replace(filters, chunk_ids=frozenset(allowed))
    preferred = "" if request.project or not settings.project_boost else request.prefer_project

    def fused_for(query: str) -> list[Fused]:
        found = candidates(
            parts, query, limit, filters, variant, query_vector, on_embedding_error, calibration
        )
        ids = sorted({i for side in (found.keyword, found.vector, found.rescored) for i, _ in side})
        transcript_ids: set[int] = set()
        if settings.transcript_weight != 1.0 and filters.source != TRANSCRIPT:
            transcript_ids = parts.store.of_source(ids, TRANSCRIPT)
        project_ids = parts.store.of_project(ids, preferred) if preferred else None
        return fused_candidates(found, settings, transcript_ids, project_ids)

    fused = fused_for(request.query)
    if settings.query_parts:
        pieces = [fused_for(part) for part in sub_queries(request.query)]
        if pieces:
            fused = merge_parts(fused, pieces)
    fused = [f for f in fused if f.score >= request.floor]
    windows = question_windows(request.query) if settings.date_boost > 0 else []
    if windows:
        chunks = parts.store.get_chunks([f.chunk_id for f in fused])
        fused = date_boosted(fused, chunks, windows, settings.date_boost)
    snippet = SnippetPicker(request.query)  # the lines of each hit that hold the query's words
    return select(fused, parts.store.get_chunks, request.limit, settings.file_diversity, snippet)


def candidates(
    parts: IndexParts,
    query: str,
    limit: int,
    filters: Filters,
    variant: SearchVariant,
    query_vector: Callable[[str], np.ndarray] | None,
    on_embedding_error: Callable[[str], None],
    calibration: Calibration | None = None,
) -> Candidates:
    """What each side finds for `query`: `limit` candidates per side and their floors."""
    found = Candidates()
    if variant.use_keyword:
        # one hit more than the candidates: its score is the floor of the normalization
        # (BM25's natural floor, 0, when fewer words matched)
        hits = parts.keyword.search(query, limit + 1, filters)
        found.keyword, found.keyword_floor = split_floor(hits, limit, 0.0)
        found.keyword_weight = parts.keyword.query_weight(query) or None
    vectors = parts.vectors
    if variant.use_vector and query_vector is not None and vectors is not None and len(vectors):
        allowed = None
        if filters.chunk_ids is not None:
            allowed = sorted(filters.chunk_ids)
        elif filters.active():
            allowed = parts.store.ids_where(filters.source, filters.since, filters.until)
        try:
            vector = query_vector(query)
            hits = vectors.search(vector, limit + 1, allowed)
            # every vector is a candidate (a small corpus): cosine 0 is the floor
            found.vector, found.vector_floor = split_floor(hits, limit, 0.0)
            if calibration is not None:
                found.similarity = calibration.scorer(vector)
            if variant.rescore:
                seen = {i for i, _ in found.vector}
                missing = [i for i, _ in found.keyword if i not in seen]
                found.rescored = vectors.scores_of(vector, missing)
        except EmbeddingError as exc:
            on_embedding_error(str(exc))
    return found
