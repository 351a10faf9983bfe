"""Text analysis for the keyword index: English words stemmed, CJK as character bigrams.

Words and identifiers: runs of letters/digits, also kept whole when joined by `.`, `-`, `_` or
`/` (so `deploy-notes.md` yields `deploy-notes.md`, `deploy`, `notes`, `md`). CJK runs are indexed
as unigrams + bigrams; a query uses bigrams (unigram for a one-character run), so a Chinese query
finds Chinese text without a segmenter. Terms are lowercased, stop-worded and Porter-stemmed
(PyStemmer; a joined identifier is kept as written) here in Python; the engine indexes the
resulting terms as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import Stemmer

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WORD_CHAR = rf"(?:(?![{_CJK}])[^\W_])"
_PATTERN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>{_WORD_CHAR}+(?:[._\-/]{_WORD_CHAR}+)*)")
_PART = re.compile(rf"{_WORD_CHAR}+")
_JOINED = re.compile(r"[._\-/]")

# Words too common to index (the classic short English list search engines use).
INDEX_STOP_WORDS: frozenset[str] = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "for",
        "from",
        "have",
        "if",
        "in",
        "is",
        "it",
        "may",
        "not",
        "of",
        "on",
        "or",
        "tbd",
        "that",
        "the",
        "this",
        "to",
        "us",
        "we",
        "when",
        "will",
        "with",
        "yet",
        "you",
        "your",
    ]
)

_FUNCTION_WORDS = """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
her hers herself it its itself they them their theirs themselves
what which who whom whose this that these those here there when where why how
am is are was were be been being have has had having do does did doing can will just should now
a an the and but if or because as until while of at by for with about against between into
through during before after above below to from up down in out on off over under again further
then once all any both each few more most other some such no nor not only own same so than too
very us may yet tbd
s t d ll m o re ve y don ain aren couldn didn doesn hadn hasn haven isn mightn mustn needn shan
shouldn wasn weren wouldn
"""
QUERY_STOP_WORDS: frozenset[str] = frozenset(_FUNCTION_WORDS.split()) | INDEX_STOP_WORDS


def raw_terms(text: str, mode: str) -> Iterator[str]:
    """Unnormalized terms of `text` (mode "query" indexes CJK as bigrams only)."""
    query = mode == "query"
    for match in _PATTERN.finditer(text):
        run = match.group("cjk")
        if run:
            if len(run) == 1 or not query:
                yield from run
            for k in range(len(run) - 1):
                yield run[k : k + 2]
            continue
        word = match.group("word")
        parts = _PART.findall(word)
        if len(parts) > 1:
            yield word
        yield from parts


class Analyzer:
    """Turns text into index terms: tokenize, lowercase, drop stop words, Porter-stem."""

    def __init__(self, stop_words: frozenset[str]) -> None:
        self.stop_words = stop_words
        self._stemmer = Stemmer.Stemmer("porter")
        self._stemmer.maxCacheSize = 50_000

    def __call__(self, text: str, mode: str = "index") -> list[str]:
        """The terms of `text`, in order (duplicates kept: they are term frequencies)."""
        stop = self.stop_words
        words = [w for w in (t.lower() for t in raw_terms(text, mode)) if w not in stop]
        plain = [k for k, w in enumerate(words) if not _JOINED.search(w)]
        for k, stem in zip(plain, self._stemmer.stemWords([words[k] for k in plain]), strict=True):
            words[k] = stem  # CJK terms come back unchanged; joined identifiers are not stemmed
        return words


def make_analyzer() -> Analyzer:
    """The analyzer of indexed text (short stop list)."""
    return Analyzer(INDEX_STOP_WORDS)


def make_query_analyzer() -> Analyzer:
    """The analyzer of queries: the index's, with the longer stop list `QUERY_STOP_WORDS`."""
    return Analyzer(QUERY_STOP_WORDS)


def query_terms(analyzer: Analyzer, text: str) -> list[str]:
    """Distinct analyzed terms of a query, in order."""
    return list(dict.fromkeys(analyzer(text, mode="query")))
