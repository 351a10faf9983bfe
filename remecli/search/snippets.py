"""The snippet of a hit: the run of its chunk's lines that holds most of the query's words.

A chunk is ~1,600 characters and a hit shows `SNIPPET_CHARS` of it, so which part it shows
decides what the model reads without opening the file. The first 700 characters held the
evidence of about half the LoCoMo questions whose evidence the hits' line ranges held
(benchmarks/snippet_recall.py). A snippet that does not start at the chunk's first line begins
with "…", one that stops before its last line ends with "…".
"""

from __future__ import annotations

from functools import lru_cache

from remecli.search.analysis import Analyzer, make_analyzer, make_query_analyzer, query_terms

SNIPPET_CHARS = 700
MORE = "…"


@lru_cache(maxsize=1)
def _analyzers() -> tuple[Analyzer, Analyzer]:
    return make_query_analyzer(), make_analyzer()


class SnippetPicker:
    """Picks the snippet of each hit of one query."""

    def __init__(self, query: str, limit: int = SNIPPET_CHARS) -> None:
        query_analyzer, self._analyzer = _analyzers()
        self.terms = frozenset(query_terms(query_analyzer, query))
        self.limit = limit

    def __call__(self, text: str) -> str:
        """The best window of whole lines of `text` within the limit (the head when no line
        holds a query word, or when the text fits)."""
        if len(text) <= self.limit:
            return text
        lines = text.split("\n")
        found = [self.terms.intersection(self._analyzer(line)) for line in lines]
        budget = self.limit - 2 * len(MORE) - 2  # room for the marks and their newlines
        best, best_key = (0, 0), (-1, -1)
        for start in range(len(lines)):
            if not (found[start] or (start + 1 < len(lines) and found[start + 1])):
                continue  # a window starts at a line with a query word, or the line before
            end, size, words, matched = start, 0, set[str](), 0
            while end < len(lines) and size + len(lines[end]) + 1 <= budget:
                size += len(lines[end]) + 1
                words |= found[end]
                matched += bool(found[end])
                end += 1
            key = (sum(len(f) for f in found[start:end]), len(words))
            if end > start and key > best_key:
                best, best_key = (start, end), key
        start, end = best
        if end == 0:  # no query word (a vector-only hit), or a first line over the limit
            return text[: self.limit]
        return self._marked(lines, start, end)

    def _marked(self, lines: list[str], start: int, end: int) -> str:
        """Lines `start`..`end` with "…" where the chunk goes on."""
        shown = "\n".join(lines[start:end])
        if start > 0:
            shown = f"{MORE}\n{shown}"
        if end < len(lines):
            shown = f"{shown}\n{MORE}"
        return shown
