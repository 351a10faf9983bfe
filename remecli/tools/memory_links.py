"""The agent's `memory_links` tool: what a memory note links to and what links to it (read-only)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Protocol, cast

from agentscope.message import TextBlock, ToolResultState
from agentscope.tool import FunctionTool, ToolChunk

from remecli.notes.links import LinkGraph, neighbours
from remecli.notes.links.expand import Direction

DESCRIPTION = (
    "Show the links of a memory note: the notes it links to (`out`) and the notes linking to it "
    "(`in`), each with path, name and description only (no bodies), as JSON. Use it on a "
    "`memory_search` hit to decide what is worth reading; `depth` 2-3 walks further."
)

INPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "description": "A note path relative to the memory folder (as memory_search returns "
            "it, e.g. memory/2025-01-31.md) or a note name.",
        },
        "depth": {"type": "integer", "description": "Hops to follow (1-3).", "default": 1},
        "direction": {
            "type": "string",
            "enum": ["in", "out", "both"],
            "description": "Links to follow: out, in or both.",
            "default": "both",
        },
    },
    "required": ["path"],
}

MAX_DEPTH = 3
MAX_NEIGHBOURS = 50


def _result(text: str, state: ToolResultState = ToolResultState.SUCCESS) -> ToolChunk:
    return ToolChunk(content=[TextBlock(type="text", text=text)], state=state)


def _depth(value: Any) -> int:
    try:
        return min(max(int(float(value)), 1), MAX_DEPTH)
    except (TypeError, ValueError):
        return 1


def links_answer(graph: LinkGraph, path: str, depth: Any = 1, direction: Any = "both") -> ToolChunk:
    """The tool's answer (blocking: run it in a thread)."""
    graph.sync()
    found = graph.locate(str(path))
    if found is None:
        return _result(
            f"No memory note {path!r}. Pass a path from a memory_search hit (e.g. "
            "memory/2025-01-31.md) or a note's name.",
            ToolResultState.ERROR,
        )
    way = cast(Direction, direction if direction in ("in", "out", "both") else "both")
    answer = neighbours(graph, found, _depth(depth), way, limit=MAX_NEIGHBOURS)
    return _result(json.dumps(answer, ensure_ascii=False))


class LinksHost(Protocol):
    """What the registry's `memory_links` needs of the memory runtime."""

    links: LinkGraph | None

    async def wait_for_index(self) -> Any:
        """Wait until the index (and with it the link graph) is open."""
        ...


def links_offered(memory: Any) -> bool:
    """Offered with memory search (the graph opens beside the index)."""
    return bool(getattr(memory, "search_enabled", False))


async def memory_links(
    memory: LinksHost, path: str, depth: int = 1, direction: str = "both"
) -> ToolChunk:
    """Show what a memory note links to and what links to it.

    Args:
        path: A note path relative to the memory folder, or a note name.
        depth: Hops to follow (1-3).
        direction: out, in or both.
    """
    if memory.links is None:
        await memory.wait_for_index()
    graph = memory.links
    if graph is None:
        return _result(
            "The link graph is not available (see logs/remecli.log); read the notes directly.",
            ToolResultState.ERROR,
        )
    return await asyncio.to_thread(links_answer, graph, path, depth, direction)


def make_memory_links_tool(graph: LinkGraph) -> FunctionTool:
    """Wrap `graph` as the read-only `memory_links` tool."""

    async def memory_links(path: str, depth: int = 1, direction: str = "both") -> ToolChunk:
        """Show what a memory note links to and what links to it.

        Args:
            path: A note path relative to the memory folder, or a note name.
            depth: Hops to follow (1-3).
            direction: out, in or both.
        """
        return await asyncio.to_thread(links_answer, graph, path, depth, direction)

    return FunctionTool(
        memory_links,
        name="memory_links",
        description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        is_read_only=True,
    )
