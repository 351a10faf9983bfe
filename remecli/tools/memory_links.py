"""The agent's `memory_links` tool: an adapter over the `memory_links` operation (read-only):
what a memory note links to and what links to it."""

from __future__ import annotations

import json
from functools import partial
from typing import Any, cast

from pydantic import ValidationError

from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import error, ok
from remecli.llm.tool_spec import ToolSpec
from remecli.notes.links import LinkGraph
from remecli.notes.links.expand import Direction
from remecli.ops.context import JobContext
from remecli.ops.errors import NotFound
from remecli.ops.knowledge_jobs import LinksParams
from remecli.ops.knowledge_jobs import memory_links as links_operation

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


def _depth(value: Any) -> int:
    try:
        return min(max(int(float(value)), 1), MAX_DEPTH)
    except (TypeError, ValueError):
        return 1


class GraphHost:
    """A bare `LinkGraph` as the tool's memory (library use without a runtime)."""

    search_enabled = True

    def __init__(self, graph: LinkGraph) -> None:
        self.links: LinkGraph | None = graph

    async def wait_for_index(self) -> None:
        """Nothing to wait for: the graph is open."""


def links_offered(memory: Any) -> bool:
    """Offered with memory search (the graph opens beside the index)."""
    return bool(getattr(memory, "search_enabled", False))


async def memory_links(
    ops: JobContext, path: str, depth: int = 1, direction: str = "both"
) -> ToolOutput:
    """Show what a memory note links to and what links to it.

    Args:
        path: A note path relative to the memory folder, or a note name.
        depth: Hops to follow (1-3).
        direction: out, in or both.
    """
    memory = ops.memory
    if memory.links is None:
        await memory.wait_for_index()
    if memory.links is None:
        return error(
            "The link graph is not available (see logs/remecli.log); read the notes directly."
        )
    way = cast(Direction, direction if direction in ("in", "out", "both") else "both")
    try:
        params = LinksParams(
            path=str(path), depth=_depth(depth), direction=way, limit=MAX_NEIGHBOURS
        )
        result = await links_operation(ops, params)
    except (ValidationError, NotFound):
        return error(
            f"No memory note {path!r}. Pass a path from a memory_search hit (e.g. "
            "memory/2025-01-31.md) or a note's name."
        )
    return ok(json.dumps(result.model_dump(mode="json"), ensure_ascii=False))


def make_memory_links_tool(graph: LinkGraph) -> ToolSpec:
    """The registry's read-only `memory_links` bound to a bare `graph`."""
    return ToolSpec(
        name="memory_links",
        description=DESCRIPTION,
        parameters=dict(INPUT_SCHEMA),
        function=partial(memory_links, JobContext.stand_in(GraphHost(graph))),
        read_only=True,
    )
