"""The agent's `memory_search` tool: hybrid search over the Markdown memory (read-only).

It is bound to the memory runtime (anything with `search_memory`, `search_enabled` and the
search settings); its defaults come from `search.max_results` and `search.min_score`.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, Protocol

from agentscope.message import TextBlock, ToolResultState
from agentscope.tool import ToolChunk

from remecli.config.settings import Settings
from remecli.llm.tool_results import error

if TYPE_CHECKING:  # the search package loads when the index opens, not with the tools
    from remecli.search.types import SearchRequest

DESCRIPTION = (
    "Search long-term memory — notes (MEMORY.md, memory/, digest/) and past conversations "
    "(sessions/*.jsonl transcripts) — with hybrid keyword + semantic retrieval. Returns a JSON "
    "list of hits with path, start_line, end_line, score, snippet, source, and the note's links "
    "(out/in, with names and descriptions); look at the links, then `read` only what matters."
)
MAX_RESULTS_CAP = 50


class MemorySearcher(Protocol):
    """What the tool needs of the memory runtime."""

    settings: Settings
    search_enabled: bool

    async def search_memory(self, request: SearchRequest) -> list[dict[str, Any]]:
        """Hits as JSON-ready dicts."""
        ...


class IndexSearcher:
    """A bare `MemoryIndex` as the tool's memory (benchmarks and library use without a runtime)."""

    search_enabled = True

    def __init__(self, index: Any, settings: Settings | None = None) -> None:
        self.index = index
        self.settings = settings or Settings(search=index.settings)

    async def search_memory(self, request: SearchRequest) -> list[dict[str, Any]]:
        """Hits as JSON-ready dicts (no link expansion: there is no graph)."""
        results = await asyncio.to_thread(self.index.search_request_blocking, request)
        return [r.to_dict() for r in results]


def memory_search_schema(memory: MemorySearcher) -> dict[str, Any]:
    """The tool's JSON schema, with the configured defaults."""
    search = memory.settings.search
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for (words or a question)."},
            "max_results": {
                "type": "integer",
                "description": f"How many hits to return (1-{MAX_RESULTS_CAP}).",
                "default": search.max_results,
            },
            "min_score": {
                "type": "number",
                "description": "Drop hits scoring below this (0-1).",
                "default": search.min_score,
            },
            "source": {
                "type": "string",
                "enum": ["all", "notes", "transcripts"],
                "description": "Where to look: notes, transcripts of past conversations, or all.",
                "default": "all",
            },
            "since": {"type": "string", "description": "Only hits dated on or after YYYY-MM-DD."},
            "until": {"type": "string", "description": "Only hits dated on or before YYYY-MM-DD."},
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


async def memory_search(
    memory: MemorySearcher,
    query: str,
    max_results: int | None = None,
    min_score: float | None = None,
    source: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> ToolChunk:
    """Search long-term memory.

    Args:
        query: What to look for.
        max_results: How many hits to return.
        min_score: Drop hits scoring below this (0-1).
        source: notes, transcripts or all.
        since: Only hits dated on or after YYYY-MM-DD.
        until: Only hits dated on or before YYYY-MM-DD.
    """
    from remecli.search.types import SearchRequest

    search = memory.settings.search
    limit = min(max(_as_int(max_results, search.max_results), 1), MAX_RESULTS_CAP)
    threshold = min(max(_as_float(min_score, search.min_score), 0.0), 1.0)
    where = str(source).strip().lower() if source else None
    try:
        request = SearchRequest(
            str(query),
            limit,
            threshold,
            source=None if where in (None, "", "all") else where,
            since=str(since) if since else None,
            until=str(until) if until else None,
        )
        results = await memory.search_memory(request)
    except ValueError as exc:  # a bad source or date: say what is accepted
        return error(f"memory_search: {exc}")
    except Exception as exc:  # noqa: BLE001 - the model gets a message it can act on
        return error(f"memory_search failed ({exc}); read MEMORY.md or memory/*.md directly.")
    text = json.dumps(results, ensure_ascii=False)
    # agentscope 2.0.11 accumulates the ToolChunk a tool returns into the ToolResponse the agent
    # sees; a ToolResponse returned from the function itself would be stringified.
    return ToolChunk(content=[TextBlock(type="text", text=text)], state=ToolResultState.SUCCESS)
