"""web_search against a fake Tavily endpoint on 127.0.0.1 (no internet)."""

from __future__ import annotations

from remecli.tools.registry import build_tools
from remecli.tools.web_search import web_search
from tests.fakes.fake_tavily import FakeTavily
from tests.tools.conftest import make_ctx


def _ctx(workspace, server: FakeTavily, **overrides):
    url = f"http://127.0.0.1:{server.server_address[1]}"
    return make_ctx(workspace, tavily_api_key="tvly-test", tavily_base_url=url, **overrides)


async def test_results_with_title_url_content(workspace, tavily) -> None:
    result = await web_search(_ctx(workspace, tavily), "remecli memory", max_results="2")
    text = result.text
    assert not result.is_error
    assert "1. First\n   https://a.example/1\n   alpha" in text and "2. Second" in text
    assert "Third" not in text
    body, headers = tavily.requests[0]
    assert body["query"] == "remecli memory" and body["max_results"] == 2
    assert headers["Authorization"] == "Bearer tvly-test"


async def test_total_is_capped(workspace, tavily) -> None:
    result = await web_search(_ctx(workspace, tavily, web_search_max_chars=500), "q")
    text = result.text
    assert len(text) <= 500 and "First" in text and "…" in text


async def test_bad_key_and_unreachable_are_errors(workspace, tavily) -> None:
    tavily.status = 401
    result = await web_search(_ctx(workspace, tavily), "q")
    assert result.is_error and "TAVILY_API_KEY" in result.text
    ctx = make_ctx(workspace, tavily_api_key="k", tavily_base_url="http://127.0.0.1:9")
    result = await web_search(ctx, "q")
    assert result.is_error and "Could not reach" in result.text


async def test_not_offered_without_a_key(workspace, tavily) -> None:
    names = [tool.name for tool in build_tools(make_ctx(workspace))]
    assert "web_search" not in names and "bash" in names
    assert "web_search" in [tool.name for tool in build_tools(_ctx(workspace, tavily))]
    result = await web_search(make_ctx(workspace), "q")
    assert result.is_error and "TAVILY_API_KEY" in result.text
