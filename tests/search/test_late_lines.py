"""Late chunking: one e5 run per text, and a vector per line pooled from its token states."""

from __future__ import annotations

import numpy as np
import pytest

from remecli.search.embedders import LocalE5Embedder

pytestmark = pytest.mark.local_model

CHUNK = (
    "# Session 3 (8 May 2023)\n"
    "Melanie: We went camping by the lake with the kids last weekend.\n"
    "\n"
    "Caroline: I finished my painting of a sunset over the sea."
)


@pytest.fixture(scope="module")
def embedder() -> LocalE5Embedder:
    return LocalE5Embedder()


def test_chunk_vectors_are_the_plain_ones_and_each_line_gets_its_own(
    embedder: LocalE5Embedder,
) -> None:
    encoder = embedder.encoder()
    texts = [CHUNK, "one short line"]
    chunk_vectors, lines = encoder.encode_lines(texts)
    assert np.allclose(chunk_vectors, encoder.encode(texts, "passage"), atol=1e-6)
    assert [rows.shape for rows in lines] == [(4, 384), (1, 384)]
    assert np.allclose(np.linalg.norm(lines[0][[0, 1, 3]], axis=1), 1.0, atol=1e-5)
    assert not lines[0][2].any()  # the blank line has no tokens
    query = embedder.embed_query("What did Caroline paint?")
    assert lines[0][3] @ query > lines[0][1] @ query
    query = embedder.embed_query("Where did Melanie go camping?")
    assert lines[0][1] @ query > lines[0][3] @ query


def test_line_spans_cover_exactly_each_line_s_tokens(embedder: LocalE5Embedder) -> None:
    encoder = embedder.encoder()
    ids = encoder.token_ids([CHUNK], "passage")[0]
    spans = encoder.line_spans(CHUNK, "passage", len(ids) - 1)
    assert spans[0].start == 1 + len(encoder.tokenizer.content_ids("passage:"))
    assert spans[-1].stop == len(ids) - 1  # up to `</s>`
    for span, line in zip(spans, CHUNK.split("\n"), strict=True):
        own = encoder.tokenizer.content_ids(line) if line else []
        assert ids[span.start : span.stop] == own


def test_lines_past_the_512_token_window_get_zero_rows(embedder: LocalE5Embedder) -> None:
    long_line = " ".join(f"fact{n} about the garden" for n in range(300))
    _, lines = embedder.encoder().encode_lines([f"{long_line}\nthe tail line"])
    assert lines[0][0].any() and not lines[0][1].any()
