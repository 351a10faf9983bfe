"""What a cosine means: the vector side's similarity on an absolute [0, 1] scale.

e5's cosines are all high and close together (0.78-0.92 on memory text), and a query of random
letters sits as close to every note as a real question to its answer (0.80-0.84 against 0.79-0.91
measured: `benchmarks/score_floor.py`), so neither a raw cosine nor its rank among the
candidates says whether anything matched. What does is how much closer the query is to a chunk
than to ordinary text: the *lift*, the cosine minus the query's mean cosine to a fixed set of
everyday passages (`REFERENCE_PASSAGES`, embedded once per embedder). Gibberish is about as
close to those as to anything; a real question is markedly closer to its answer. The lift is
mapped linearly from `floor` (→ 0: no match, the hit is dropped) to `strong` (→ 1).

Only the local e5 models are calibrated (`CALIBRATED`); another embedder (an API model) keeps
the candidates' min-max scaling.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np

from remecli.search.embedders import LOCAL_MODEL_IDS, Embedder

REFERENCE_PASSAGES = (
    "The weather was mild and it rained a little in the afternoon.",
    "She called her sister to talk about the weekend.",
    "The meeting covered the budget for next quarter.",
    "I finished reading a novel about a family in a small town.",
    "They painted the kitchen a light shade of green.",
    "The train was delayed by twenty minutes this morning.",
    "He is learning to play the guitar in the evenings.",
    "We ordered pizza and watched a movie together.",
    "The report needs two more charts before Friday.",
    "Our dog loves long walks by the lake.",
    "The software update fixed a bug in the login page.",
    "My neighbour grows tomatoes in the garden.",
    "The museum has a new exhibition on ancient Egypt.",
    "I need to renew my passport before the trip.",
    "The children played football in the park after school.",
    "会议讨论了下个季度的预算。",
)


@dataclass(frozen=True, slots=True)
class Scale:
    """Lift (cosine minus the query's mean cosine to the reference passages) → [0, 1]."""

    floor: float  # lift at or below which nothing matched
    strong: float  # lift from which a match counts fully

    def value(self, lift: float) -> float:
        """The calibrated similarity of one lift, in [0, 1]."""
        return min(max((lift - self.floor) / (self.strong - self.floor), 0.0), 1.0)


# Lifts of e5 depend on the length of the text: random letters reach 0.087 against LoCoMo's
# ~200-token chunks but 0.072 against one-sentence memories, whose real matches lift less too.
E5_CHUNKS = Scale(floor=0.075, strong=0.15)  # notes and transcripts (`MemoryIndex`)
E5_MEMORIES = Scale(floor=0.045, strong=0.12)  # the vector memory's one-sentence memories
SCALES = {"chunks": E5_CHUNKS, "memories": E5_MEMORIES}
CALIBRATED = set(LOCAL_MODEL_IDS.values())
_REFERENCES: weakref.WeakKeyDictionary[Embedder, np.ndarray] = weakref.WeakKeyDictionary()
_REFERENCES_LOCK = threading.Lock()


class Calibration:
    """One embedder's scale for one kind of text; its reference vectors are embedded at the
    first use and kept for the embedder."""

    def __init__(self, embedder: Embedder, scale: Scale) -> None:
        self.embedder = embedder
        self.scale = scale

    def references(self) -> np.ndarray:
        """The reference passages' vectors (one embedding call per embedder)."""
        with _REFERENCES_LOCK:
            known = _REFERENCES.get(self.embedder)
            if known is None:
                known = self.embedder.embed_documents(list(REFERENCE_PASSAGES))
                _REFERENCES[self.embedder] = known
            return known

    def baseline(self, query: np.ndarray) -> float:
        """The query's mean cosine to the reference passages: what "no match" looks like."""
        return float(np.mean(self.references() @ np.asarray(query, dtype=np.float32)))

    def scorer(self, query: np.ndarray) -> SimilarityScorer:
        """Cosine → calibrated similarity for this query."""
        return SimilarityScorer(self.scale, self.baseline(query))


@dataclass(frozen=True, slots=True)
class SimilarityScorer:
    """The calibrated similarity of one query's cosines."""

    scale: Scale
    baseline: float

    def __call__(self, cosine: float) -> float:
        return self.scale.value(cosine - self.baseline)


def calibration_for(embedder: Embedder | None, texts: str = "chunks") -> Calibration | None:
    """The embedder's calibration for `texts` ("chunks" or "memories"), or None when its
    cosines have no measured scale."""
    if embedder is None or getattr(embedder, "model_id", "") not in CALIBRATED:
        return None
    return Calibration(embedder, SCALES[texts])
