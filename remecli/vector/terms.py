"""Keyword terms of memories and queries (the project's analyzer: English stems, CJK bigrams).

Stores index these pre-analyzed terms, so the keyword side behaves the same on every backend.
"""

from __future__ import annotations

import functools

from remecli.search.analysis import Analyzer, make_analyzer, make_query_analyzer, query_terms


@functools.cache
def _analyzers() -> tuple[Analyzer, Analyzer]:
    return make_analyzer(), make_query_analyzer()


def document_terms(text: str) -> list[str]:
    """Every analyzed term of a memory's text, in order (repeats kept, for term frequency)."""
    analyzer, _ = _analyzers()
    return [term for term in analyzer(text) if term]


def search_terms(text: str) -> list[str]:
    """Distinct content terms of a query (function words dropped unless nothing else is left)."""
    analyzer, query_analyzer = _analyzers()
    terms = query_terms(query_analyzer, text) or query_terms(analyzer, text)
    return [term for term in terms if term]
