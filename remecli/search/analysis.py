"""Text analysis for the keyword index: English words stemmed, CJK as character bigrams.

Words and identifiers: runs of letters/digits, also kept whole when joined by `.`, `-`, `_` or
`/` (so `deploy-notes.md` yields `deploy-notes.md`, `deploy`, `notes`, `md`). CJK runs are indexed
as unigrams + bigrams; a query uses bigrams (unigram for a one-character run), so a Chinese query
finds Chinese text without a segmenter.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from whoosh.analysis import LowercaseFilter, StemFilter, StopFilter, Token, Tokenizer
from whoosh.analysis.filters import STOP_WORDS

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WORD_CHAR = rf"(?:(?![{_CJK}])[^\W_])"
_PATTERN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>{_WORD_CHAR}+(?:[._\-/]{_WORD_CHAR}+)*)")
_PART = re.compile(rf"{_WORD_CHAR}+")


def _terms(text: str, mode: str) -> Iterator[tuple[str, int, int]]:
    """(term, start_char, end_char) for each indexable term of `text`."""
    query = mode == "query"
    for match in _PATTERN.finditer(text):
        start = match.start()
        if match.group("cjk"):
            run = match.group("cjk")
            if len(run) == 1 or not query:
                for k, char in enumerate(run):
                    yield char, start + k, start + k + 1
            for k in range(len(run) - 1):
                yield run[k : k + 2], start + k, start + k + 2
            continue
        word = match.group("word")
        parts = list(_PART.finditer(word))
        if len(parts) > 1:
            yield word, start, match.end()
        for part in parts:
            yield part.group(), start + part.start(), start + part.end()


class MixedTokenizer(Tokenizer):
    """A whoosh tokenizer for mixed English/identifier/CJK text (see module docstring)."""

    def __call__(  # noqa: D102 - whoosh's tokenizer protocol
        self,
        value,
        positions=False,
        chars=False,
        keeporiginal=False,
        removestops=True,
        start_pos=0,
        start_char=0,
        tokenize=True,
        mode="",
        **kwargs,
    ):
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        for pos, (text, begin, end) in enumerate(_terms(value, mode)):
            token.text = text
            token.boost = 1.0
            token.stopped = False
            if keeporiginal:
                token.original = text
            if positions:
                token.pos = start_pos + pos
            if chars:
                token.startchar = start_char + begin
                token.endchar = start_char + end
            yield token


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
QUERY_STOP_WORDS: frozenset[str] = frozenset(_FUNCTION_WORDS.split()) | frozenset(STOP_WORDS)


def make_analyzer():
    """The analyzer used for both indexing and queries."""
    return MixedTokenizer() | LowercaseFilter() | StopFilter(STOP_WORDS, minsize=1) | StemFilter()


def make_query_analyzer():
    """The analyzer of queries: the index's, with the longer stop list `QUERY_STOP_WORDS`."""
    return (
        MixedTokenizer()
        | LowercaseFilter()
        | StopFilter(QUERY_STOP_WORDS, minsize=1)
        | StemFilter()
    )


def query_terms(analyzer, text: str) -> list[str]:
    """Distinct analyzed terms of a query, in order."""
    seen: dict[str, None] = {}
    for token in analyzer(text, mode="query"):
        seen.setdefault(token.text, None)
    return list(seen)
