"""Benchmark-side search knobs: rank one question by a variant of the production search.

The production API takes only a `SearchRequest`; measuring needs more (another fusion
method, other search settings, the vector or keyword side switched off), which lives here.
"""

from __future__ import annotations

from typing import Any

from remecli.search import MemoryIndex, SearchHit, SearchRequest
from remecli.search.types import SearchVariant


def search_variant(
    index: MemoryIndex,
    query: str,
    max_results: int,
    min_score: float,
    *,
    method: str | None = None,
    overrides: dict[str, Any] | None = None,
    use_vector: bool = True,
    use_keyword: bool = True,
    rescore: bool = True,
) -> list[SearchHit]:
    """`query` ranked with `method` (settings.fusion) and `overrides` (other search settings,
    e.g. vector_weight, normalization, candidate_multiplier, file_diversity, query_parts);
    `use_*` and `rescore` switch parts off."""
    changes = {**(overrides or {}), **({"fusion": method} if method else {})}
    settings = index.settings
    if changes:  # validated, so "query_parts=1" is a bool and a bad value is an error
        settings = type(settings).model_validate({**settings.model_dump(), **changes})
    request = SearchRequest(query=query, max_results=max_results, min_score=min_score)
    variant = SearchVariant(settings, use_vector, use_keyword, rescore)
    return index.search_variant_blocking(request, variant)
