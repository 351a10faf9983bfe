"""Keyword terms of memories and queries (the project's analyzer: English stems, CJK bigrams).

Stores index these pre-analyzed terms, so the keyword side behaves the same on every backend.
"""

from __future__ import annotations

import functools
from typing import Any

from remecli.search.analysis import make_analyzer, make_query_analyzer, query_terms


@functools.cache
def _analyzers() -> tuple[Any, Any]:
    return make_analyzer(), make_query_analyzer()


def document_terms(text: str) -> list[str]:
    """Every analyzed term of a memory's text, in order (repeats kept, for term frequency)."""
    analyzer, _ = _analyzers()
    return [token.text for token in analyzer(text)]


def search_terms(text: str) -> list[str]:
    """Distinct content terms of a query (function words dropped unless nothing else is left)."""
    analyzer, query_analyzer = _analyzers()
    return query_terms(query_analyzer, text) or query_terms(analyzer, text)
