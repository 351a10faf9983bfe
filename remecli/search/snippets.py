"""The snippet of a hit: the run of its chunk's lines (or, for a line too long to show whole,
of its pieces) that holds most of the query's words.

A chunk is ~800 characters (~200 tokens) and a hit shows `SNIPPET_CHARS` of it, so which part
it shows decides what the model reads without opening the file (with 1,600-character chunks,
their first 700 characters held the evidence of about half the LoCoMo questions whose evidence
the hits' line ranges held; benchmarks/snippet_recall.py). A window starts at a line holding a
query word or at the line before it (the question a reply answers; past blank lines, so a
heading right above is shown). A snippet that does not start at the chunk's first line begins
with "…", one that stops before its last line ends with "…".
"""

from __future__ import annotations

import math
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
        """The best window of `text` within the limit: whole lines, or pieces of a line too
        long to show whole (the head when nothing holds a query word, or when it all fits)."""
        if len(text) <= self.limit:
            return text
        budget = self.limit - 2 * len(MORE) - 2  # room for the marks and their separators
        pieces = _pieces(text, budget // 2)
        found = [self.terms.intersection(self._analyzer(piece)) for piece, _ in pieces]
        counts: dict[str, int] = {}  # a word on every other line (a name) weighs little
        for terms in found:
            for term in terms:
                counts[term] = counts.get(term, 0) + 1
        weight = {t: math.log(1 + len(pieces) / c) for t, c in counts.items()}
        worth = [sum(weight[t] for t in sorted(terms)) for terms in found]  # same on every run
        best, best_key = (0, 0), (-1.0, -1)
        for start in _starts(pieces, found):
            end, size, words = start, 0, set[str]()
            while end < len(pieces) and size + len(pieces[end][0]) + 1 <= budget:
                size += len(pieces[end][0]) + 1
                words |= found[end]
                end += 1
            key = (sum(worth[start:end], 0.0), len(words))
            if end > start and key > best_key:
                best, best_key = (start, end), key
        start, end = best
        if end == 0:  # no query word (a vector-only hit)
            return text[: self.limit]
        while not pieces[end - 1][0].strip():  # no blank lines before the closing mark
            end -= 1
        return _joined(pieces, start, end)


def _starts(pieces: list[tuple[str, bool]], found: list[frozenset[str]]) -> list[int]:
    """Where a window may start: a piece with a query word, or the last non-blank piece
    before it."""
    starts: set[int] = set()
    before = -1  # the last non-blank piece so far
    for k, (piece, _) in enumerate(pieces):
        if found[k]:
            starts.add(k)
            if before >= 0:
                starts.add(before)
        if piece.strip():
            before = k
    return sorted(starts)


def _pieces(text: str, longest: int) -> list[tuple[str, bool]]:
    """`text` as (piece, starts a line): its lines, a line longer than `longest` cut at spaces
    into pieces of at most that many characters (a longer word cut where it must)."""
    pieces: list[tuple[str, bool]] = []
    for line in text.split("\n"):
        first = True
        while len(line) > longest:
            cut = line.rfind(" ", 1, longest + 1)
            cut = cut if cut > 0 else longest
            pieces.append((line[:cut], first))
            line, first = line[cut:].lstrip(" "), False
        pieces.append((line, first))
    return pieces


def _joined(pieces: list[tuple[str, bool]], start: int, end: int) -> str:
    """Pieces `start`..`end` as text, with "…" where the chunk goes on."""
    shown = pieces[start][0]
    for piece, new_line in pieces[start + 1 : end]:
        shown += ("\n" if new_line else " ") + piece
    if start > 0:
        shown = MORE + ("\n" if pieces[start][1] else " ") + shown
    if end < len(pieces):
        shown += ("\n" if pieces[end][1] else " ") + MORE
    return shown
