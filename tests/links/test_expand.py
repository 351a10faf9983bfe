"""Progressive expansion of search results and the `memory_links` tool."""

from __future__ import annotations

import json
from pathlib import Path

from agentscope.message import ToolCallBlock
from agentscope.state import AgentState
from agentscope.tool import Toolkit, ToolResponse

from remecli.llm.agentscope_adapter import runtime_tool
from remecli.notes.links import LinkGraph, expand, neighbours, prompt_text
from remecli.tools.memory_links import make_memory_links_tool
from tests.links.conftest import write_files

ITEM_KEYS = {"path", "name", "description"}


def test_expand_adds_links_without_bodies(linked_dir: Path) -> None:
    graph = LinkGraph.open(linked_dir, persist=False)
    results = [
        {"path": "memory/2025-01-31/deploy.md", "start_line": 7, "end_line": 9, "snippet": "x"},
        {"path": "MEMORY.md", "start_line": 1, "end_line": 3, "snippet": "y"},
    ]
    expanded = expand(results, graph)
    assert [r["snippet"] for r in expanded] == ["x", "y"] and "links" not in results[0]
    card = expanded[0]["links"]
    assert [item["path"] for item in card["out"]] == [
        "sessions/abc.jsonl",
        "digest/procedure/release-checklist.md",
        "digest/procedure/rollback.md",
        "digest/wiki/blue-green.md",
    ]
    assert card["out"][1] == {
        "path": "digest/procedure/release-checklist.md",
        "name": "Release checklist",
        "description": "Steps before a release",
    }
    assert [item["path"] for item in card["in"]] == [
        "MEMORY.md",
        "digest/procedure/release-checklist.md",
        "memory/2025-01-31.md",
    ]
    for result in expanded:
        for direction in ("out", "in"):
            assert all(set(item) == ITEM_KEYS for item in result["links"][direction])


def test_at_most_ten_distinct_neighbours_per_direction(tmp_path: Path) -> None:
    root = tmp_path / "wd"
    hub = "".join(f"- [[n{i}]] and again [[n{i}]]\n" for i in range(15))
    files = {"MEMORY.md": hub, **{f"memory/n{i}.md": "[[MEMORY.md]]\n" for i in range(15)}}
    write_files(root, files)
    graph = LinkGraph.open(root, persist=False)
    links = expand([{"path": "MEMORY.md"}], graph)[0]["links"]
    assert [item["path"] for item in links["out"]] == [f"memory/n{i}.md" for i in range(10)]
    assert len(links["in"]) == 10
    assert expand([{"path": "memory/unknown.md"}], graph)[0]["links"] == {"out": [], "in": []}


def test_neighbours_walk_further_with_depth(linked_dir: Path) -> None:
    graph = LinkGraph.open(linked_dir, persist=False)
    one = neighbours(graph, "MEMORY.md", depth=1, direction="out")
    assert [(i["path"], i["depth"]) for i in one["out"]] == [("memory/2025-01-31/deploy.md", 1)]
    assert one["in"] == [] and one["dangling"] == [{"target": "personal/editor", "line": 4}]
    two = neighbours(graph, "MEMORY.md", depth=2, direction="out")
    assert [(i["path"], i["depth"], i["via"]) for i in two["out"]][1:] == [
        ("sessions/abc.jsonl", 2, "memory/2025-01-31/deploy.md"),
        ("digest/procedure/release-checklist.md", 2, "memory/2025-01-31/deploy.md"),
        ("digest/procedure/rollback.md", 2, "memory/2025-01-31/deploy.md"),
        ("digest/wiki/blue-green.md", 2, "memory/2025-01-31/deploy.md"),
    ]
    back = neighbours(graph, "digest/procedure/rollback.md", depth=3, direction="in")
    assert {i["path"] for i in back["in"]} == {
        "memory/2025-01-31/deploy.md",
        "digest/procedure/release-checklist.md",
        "MEMORY.md",
        "memory/2025-01-31.md",
    }
    assert all(i["path"] != "digest/procedure/rollback.md" for i in back["in"])


async def _call(toolkit: Toolkit, arguments: dict) -> ToolResponse:
    block = ToolCallBlock(id="call-1", name="memory_links", input=json.dumps(arguments))
    final = None
    async for item in toolkit.call_tool(block, AgentState()):
        final = item
    assert isinstance(final, ToolResponse)
    return final


async def test_memory_links_tool_through_the_toolkit(linked_dir: Path) -> None:
    graph = LinkGraph.open(linked_dir, persist=False)
    tool = make_memory_links_tool(graph)
    assert tool.read_only and tool.parameters["required"] == ["path"]
    toolkit = Toolkit(tools=[runtime_tool(tool)])
    response = await _call(toolkit, {"path": "Deploy steps", "depth": "2", "direction": "in"})
    assert response.state == "success"
    answer = json.loads(response.content[0].text)
    assert answer["path"] == "memory/2025-01-31/deploy.md" and answer["out"] == []
    assert {i["path"] for i in answer["in"]} == {
        "MEMORY.md",
        "digest/procedure/release-checklist.md",
        "memory/2025-01-31.md",
    }
    # the graph follows files changed since it was opened
    (linked_dir / "digest/wiki/new.md").write_text("Links [[Deploy steps]].\n")
    answer = json.loads((await _call(toolkit, {"path": "Deploy steps"})).content[0].text)
    assert "digest/wiki/new.md" in {i["path"] for i in answer["in"]}
    missing = await _call(toolkit, {"path": "memory/nope.md"})
    assert missing.state == "error" and "memory_search" in missing.content[0].text


def test_the_prompt_teaches_the_three_steps_in_both_languages() -> None:
    english, chinese = prompt_text(""), prompt_text("zh")
    for name in ("memory_search", "memory_links", "read"):
        assert name in english and name in chinese
    assert english != chinese and "链接" in chinese
