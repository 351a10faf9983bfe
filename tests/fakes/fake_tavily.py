"""A fake Tavily search endpoint on 127.0.0.1 (no internet) and its `tavily` fixture."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

RESULTS = [
    {"title": "First", "url": "https://a.example/1", "content": "alpha " * 10, "score": 0.9},
    {"title": "Second", "url": "https://b.example/2", "content": "beta " * 400, "score": 0.5},
    {"title": "Third", "url": "https://c.example/3", "content": "gamma", "score": 0.1},
]


class FakeTavily(ThreadingHTTPServer):
    """Answers POST /search like Tavily; records request bodies and headers."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[dict, dict]] = []
        self.status = 200


class _Handler(BaseHTTPRequestHandler):
    server: FakeTavily

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((body, dict(self.headers)))
        if self.server.status == 200:
            payload = {"query": body["query"], "results": RESULTS[: body.get("max_results", 5)]}
        else:
            payload = {"detail": {"error": "Unauthorized: missing or invalid API key."}}
        data = json.dumps(payload).encode()
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def tavily(monkeypatch) -> Iterator[FakeTavily]:
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    server = FakeTavily()
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
