"""One search over opened parts: keyword and vector candidates, fused and ranked."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from remecli.search.embedders import EmbeddingError
from remecli.search.keyword import Filters
from remecli.search.parts import IndexParts
from remecli.search.ranking import Candidates, rank, split_floor
from remecli.search.transcripts import SOURCE as TRANSCRIPT
from remecli.search.types import SearchRequest, SearchResult, SearchVariant


def search_parts(
    parts: IndexParts,
    request: SearchRequest,
    filters: Filters,
    variant: SearchVariant,
    query_vector: Callable[[str], np.ndarray] | None,
    on_embedding_error: Callable[[str], None],
) -> list[SearchResult]:
    """The ranked hits of `request` (`query_vector` None: keyword only); an embedding error
    is reported to `on_embedding_error` and the search goes on by keyword."""
    query, max_results, min_score = request.query, request.max_results, request.min_score
    settings = variant.settings
    use_vector, use_keyword, rescore = variant.use_vector, variant.use_keyword, variant.rescore
    limit = max_results * settings.candidate_multiplier
    found = Candidates()
    if use_keyword:
        # one hit more than the candidates: its score is the floor of the normalization
        # (BM25's natural floor, 0, when fewer words matched)
        hits = parts.keyword.search(query, limit + 1, filters)
        found.keyword, found.keyword_floor = split_floor(hits, limit, 0.0)
    vectors = parts.vectors
    if use_vector and query_vector is not None and vectors is not None and len(vectors):
        allowed = None
        if filters.active():
            allowed = parts.store.ids_where(filters.source, filters.since, filters.until)
        try:
            vector = query_vector(query)
            hits = vectors.search(vector, limit + 1, allowed)
            # every vector is a candidate (a small corpus): cosine 0 is the floor
            found.vector, found.vector_floor = split_floor(hits, limit, 0.0)
            if rescore:
                seen = {i for i, _ in found.vector}
                missing = [i for i, _ in found.keyword if i not in seen]
                found.rescored = vectors.scores_of(vector, missing)
        except EmbeddingError as exc:
            on_embedding_error(str(exc))
    transcript_ids: set[int] = set()
    if settings.transcript_weight != 1.0 and filters.source != TRANSCRIPT:
        ids = {i for side in (found.keyword, found.vector, found.rescored) for i, _ in side}
        transcript_ids = parts.store.of_source(sorted(ids), TRANSCRIPT)
    return rank(found, parts.store.get_chunks, settings, max_results, min_score, transcript_ids)
