"""web_search against a fake Tavily endpoint on 127.0.0.1 (no internet)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from remecli.tools.registry import build_tools
from remecli.tools.web_search import web_search
from tests.tools.conftest import is_error, make_ctx, text_of

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


def _ctx(workspace, server: FakeTavily, **overrides):
    url = f"http://127.0.0.1:{server.server_address[1]}"
    return make_ctx(workspace, tavily_api_key="tvly-test", tavily_base_url=url, **overrides)


async def test_results_with_title_url_content(workspace, tavily) -> None:
    result = await web_search(_ctx(workspace, tavily), "remecli memory", max_results="2")
    text = text_of(result)
    assert not is_error(result)
    assert "1. First\n   https://a.example/1\n   alpha" in text and "2. Second" in text
    assert "Third" not in text
    body, headers = tavily.requests[0]
    assert body["query"] == "remecli memory" and body["max_results"] == 2
    assert headers["Authorization"] == "Bearer tvly-test"


async def test_total_is_capped(workspace, tavily) -> None:
    result = await web_search(_ctx(workspace, tavily, web_search_max_chars=500), "q")
    text = text_of(result)
    assert len(text) <= 500 and "First" in text and "…" in text


async def test_bad_key_and_unreachable_are_errors(workspace, tavily) -> None:
    tavily.status = 401
    result = await web_search(_ctx(workspace, tavily), "q")
    assert is_error(result) and "TAVILY_API_KEY" in text_of(result)
    ctx = make_ctx(workspace, tavily_api_key="k", tavily_base_url="http://127.0.0.1:9")
    result = await web_search(ctx, "q")
    assert is_error(result) and "Could not reach" in text_of(result)


async def test_not_offered_without_a_key(workspace, tavily) -> None:
    names = [tool.name for tool in build_tools(make_ctx(workspace))]
    assert "web_search" not in names and "bash" in names
    assert "web_search" in [tool.name for tool in build_tools(_ctx(workspace, tavily))]
    result = await web_search(make_ctx(workspace), "q")
    assert is_error(result) and "TAVILY_API_KEY" in text_of(result)
