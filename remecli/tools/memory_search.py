"""The agent's `memory_search` tool: hybrid search over the Markdown memory (read-only)."""

from __future__ import annotations

import json
from typing import Any

from agentscope.message import TextBlock, ToolResultState
from agentscope.tool import FunctionTool, ToolChunk

from remecli.search import MemoryIndex

DESCRIPTION = (
    "Search long-term memory (MEMORY.md and memory/*.md) with hybrid keyword + semantic "
    "retrieval. Returns a JSON list of hits with path, start_line, end_line, score, snippet and "
    "the matching signals; read the file for more context around a hit."
)

INPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to look for (words or a question)."},
        "max_results": {
            "type": "integer",
            "description": "How many hits to return (1-50).",
            "default": 5,
        },
        "min_score": {
            "type": "number",
            "description": "Drop hits scoring below this (0-1).",
            "default": 0.1,
        },
    },
    "required": ["query"],
}


def _as_int(value: Any, default: int) -> int:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return default


def _as_float(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def make_memory_search_tool(index: MemoryIndex) -> FunctionTool:
    """Wrap `index` as the read-only `memory_search` tool (register it once the index is ready)."""

    async def memory_search(query: str, max_results: int = 5, min_score: float = 0.1) -> ToolChunk:
        """Search long-term memory.

        Args:
            query: What to look for.
            max_results: How many hits to return.
            min_score: Drop hits scoring below this (0-1).
        """
        limit = min(max(_as_int(max_results, 5), 1), 50)
        threshold = min(max(_as_float(min_score, 0.1), 0.0), 1.0)
        results = await index.search(str(query), max_results=limit, min_score=threshold)
        text = json.dumps([r.to_dict() for r in results], ensure_ascii=False)
        # agentscope 2.0.11 accumulates the ToolChunk a tool returns into the ToolResponse the agent
        # sees; a ToolResponse returned from the function itself would be stringified.
        return ToolChunk(content=[TextBlock(type="text", text=text)], state=ToolResultState.SUCCESS)

    return FunctionTool(
        memory_search,
        name="memory_search",
        description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        is_read_only=True,
    )
