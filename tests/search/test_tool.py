"""The agent tool `memory_search`, called the way agentscope's Toolkit calls it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentscope.message import ToolCallBlock
from agentscope.state import AgentState
from agentscope.tool import Toolkit, ToolResponse

from remecli.config.settings import Settings
from remecli.conversation.file_memory import FileMemory
from remecli.llm.agentscope_adapter import runtime_tool
from remecli.search import MemoryIndex, SearchHit, SearchRequest
from remecli.tools.context import ToolContext
from remecli.tools.memory_search import IndexSearcher
from remecli.tools.registry import build_tools
from tests.search.helpers import settings


def dicts(hits: list[SearchHit]) -> list[dict]:
    """Hits as every surface serializes them."""
    return [hit.to_dict() for hit in hits]


@pytest.fixture
def index(working_dir: Path):
    index = MemoryIndex.open(working_dir, settings())
    index.sync_blocking()
    yield index
    index.close()


def make_memory_search_tool(index: MemoryIndex, working_dir: Path):
    """The registry's memory_search, bound to a runtime whose index is `index`."""
    full = Settings(working_dir=str(working_dir), search=settings())
    memory = FileMemory(working_dir, settings=full)
    memory.index = index
    ctx = ToolContext(
        workspace=working_dir, working_dir=working_dir, settings=full.tools, writer=memory.writer
    )
    [tool] = [t for t in build_tools(ctx, memory=memory) if t.name == "memory_search"]
    return tool


async def _call(toolkit: Toolkit, arguments: dict) -> ToolResponse:
    block = ToolCallBlock(id="call-1", name="memory_search", input=json.dumps(arguments))
    final = None
    async for item in toolkit.call_tool(block, AgentState()):
        final = item
    assert isinstance(final, ToolResponse)
    return final


@pytest.mark.parametrize(
    ("max_results", "min_score"),
    [(1, 0.1), (1.0, 0), ("1", "0.1"), (" 1 ", 0.0), ("1.0", "0")],
)
async def test_int_float_and_numeric_string_arguments(
    index, working_dir, max_results, min_score
) -> None:
    toolkit = Toolkit(tools=[runtime_tool(make_memory_search_tool(index, working_dir))])
    response = await _call(
        toolkit, {"query": "backup schedule", "max_results": max_results, "min_score": min_score}
    )
    assert response.state == "success"
    hits = json.loads(response.content[0].text)
    assert len(hits) == 1
    assert hits[0]["path"] == "memory/2025-01-02.md"
    assert set(hits[0]) >= {"path", "start_line", "end_line", "score", "snippet", "signals"}


async def test_defaults_bad_numbers_and_no_match(index, working_dir) -> None:
    tool = make_memory_search_tool(index, working_dir)
    assert tool.read_only and tool.name == "memory_search"
    assert tool.parameters["required"] == ["query"]
    hits = json.loads((await tool.function(query="deploy", max_results="lots")).text)
    assert 1 <= len(hits) <= 5
    assert json.loads((await tool.function(query="zeppelin")).text) == []


async def test_the_runtime_the_tool_and_a_bare_index_answer_one_request_alike(
    index, working_dir
) -> None:
    memory = FileMemory(
        working_dir, settings=Settings(working_dir=str(working_dir), search=settings())
    )
    memory.index = index
    request = SearchRequest(
        query="backup schedule", max_results=1, min_score=0.1, source="notes", since="2025-01-01"
    )
    by_keywords = await memory.memory_search(
        "backup schedule", 1, 0.1, source="notes", since="2025-01-01", links=False
    )
    assert [h["path"] for h in by_keywords] == ["memory/2025-01-02.md"]
    assert dicts(await memory.search_memory(request, links=False)) == by_keywords
    assert dicts(await IndexSearcher(index).search_memory(request)) == by_keywords
    tool = make_memory_search_tool(index, working_dir)
    called = await tool.function(
        query="backup schedule", max_results=1, min_score=0.1, source="notes", since="2025-01-01"
    )
    assert [h["path"] for h in json.loads(called.text)] == ["memory/2025-01-02.md"]
    # the filters travel with the request: no note is dated 2030 or later
    late = SearchRequest(query="backup schedule", max_results=1, min_score=0.1, since="2030-01-01")
    assert await IndexSearcher(index).search_memory(late) == []
    with pytest.raises(ValueError):
        await IndexSearcher(index).search_memory(
            SearchRequest(query="backup", max_results=5, min_score=0.0, source="elsewhere")
        )


async def test_the_seeds_search_of_an_empty_query_still_finds_nothing(index, working_dir) -> None:
    """The seed's `FileMemory.memory_search("")` answered [] before the request was validated."""
    memory = FileMemory(
        working_dir, settings=Settings(working_dir=str(working_dir), search=settings())
    )
    memory.index = index
    assert await memory.memory_search("") == []
    assert await memory.memory_search("   ") == []


async def test_the_tool_on_a_bare_index_answers_like_the_runtime(index, working_dir) -> None:
    """`memory_search_tool(index)` (benchmarks, library use) found nothing: the operation
    marks timed claims under the working dir, which a bare index's host did not name."""
    from remecli.tools.registry import memory_search_tool

    tool = memory_search_tool(index)
    answer = await tool.function(query="backup schedule", max_results=1, min_score=0.1)
    assert not answer.is_error, answer.text
    assert [h["path"] for h in json.loads(answer.text)] == ["memory/2025-01-02.md"]
