"""The OpenAI-compatible API embedder against a tiny real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from remecli.config.search import EmbeddingSettings
from remecli.search import ApiEmbedder, EmbeddingError, MemoryIndex, SearchRequest, make_embedder
from tests.search.fake_embedder import CharNgramEmbedder
from tests.search.helpers import settings


class EmbeddingServer:
    """Serves POST /v1/embeddings with CharNgramEmbedder vectors; records requests."""

    def __init__(self, fail: bool = False) -> None:
        self.requests: list[dict] = []
        self.fail = fail
        model = CharNgramEmbedder(dimensions=64)
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server API
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(
                    {"path": self.path, "auth": self.headers["Authorization"], **body}
                )
                if owner.fail or self.path != "/v1/embeddings":
                    self._send(
                        401, {"error": {"message": "bad key", "type": "invalid_request_error"}}
                    )
                    return
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                vectors = model.embed_documents(texts)[:, : body.get("dimensions", 64)]
                data = [
                    {"object": "embedding", "index": i, "embedding": [float(x) * 3 for x in v]}
                    for i, v in enumerate(vectors)
                ]
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body["model"],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )

            def _send(self, status: int, payload: dict) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> EmbeddingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


def _api_settings(base_url: str, **extra):
    embedding = {
        "backend": "auto",
        "api_key": "sk-test",
        "base_url": base_url,
        "model_name": "tiny-embed",
        "batch_size": 2,
        **extra,
    }
    return settings(embedding=embedding)


async def test_api_embedder_indexes_searches_and_caches(working_dir: Path, server) -> None:
    config = _api_settings(server.base_url, dimensions=48)
    index = MemoryIndex.open(working_dir, config)
    assert isinstance(index.embedder, ApiEmbedder)
    try:
        report = await index.sync()
        assert report.chunks_embedded == 4 and not report.embedding_error
        batches = [
            r for r in server.requests if isinstance(r["input"], list) and len(r["input"]) > 1
        ]
        assert batches and all(len(r["input"]) <= 2 for r in batches)
        first = server.requests[0]
        assert first["path"] == "/v1/embeddings" and first["auth"] == "Bearer sk-test"
        assert first["model"] == "tiny-embed" and first["dimensions"] == 48
        results = await index.search(SearchRequest(query="nightly database backup", max_results=1))
        assert results[0].path == "memory/2025-01-02.md"
        assert sorted(results[0].signals) == ["bm25", "vector"]
        assert index.stats()["vectors"] == 4
    finally:
        index.close()
    before = len(server.requests)
    again = MemoryIndex.open(working_dir, config)
    try:
        assert (await again.reindex()).chunks_embedded == 0  # served from the on-disk cache
        assert len(server.requests) == before
    finally:
        again.close()


async def test_api_failure_keeps_keyword_search_working(working_dir: Path) -> None:
    with EmbeddingServer(fail=True) as failing:
        index = MemoryIndex.open(working_dir, _api_settings(failing.base_url))
        try:
            report = await index.sync()
            assert "embedding API" in report.embedding_error
            assert "search.embedding" in report.embedding_error
            results = await index.search(SearchRequest(query="sourdough"))
            assert results and results[0].signals == ["bm25"]
        finally:
            index.close()


def test_backend_selection() -> None:
    assert make_embedder(EmbeddingSettings(backend="none")) is None
    assert type(make_embedder(EmbeddingSettings())).__name__ == "LocalE5Embedder"
    assert isinstance(make_embedder(EmbeddingSettings(api_key="k")), ApiEmbedder)
    with pytest.raises(EmbeddingError, match="api_key"):
        make_embedder(EmbeddingSettings(backend="api"))
    assert EmbeddingSettings.model_validate({"backend": None}).backend == "none"
