"""The agent's `memory_search` tool: an adapter over the `memory_search` operation (read-only).

It is bound to a `JobContext` on the memory runtime (anything with `search_memory`,
`search_enabled` and the search settings); it reads the model's arguments leniently, calls the
operation (which resolves the defaults) and gives the model the hits as JSON.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from remecli.config.settings import Settings
from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import error, ok
from remecli.notes.layout import WorkingDir
from remecli.ops.context import JobContext
from remecli.ops.errors import JobError
from remecli.ops.runner import describe_validation
from remecli.ops.search_jobs import memory_search as search_operation
from remecli.search.request import SearchRequest

if TYPE_CHECKING:  # the search package loads when the index opens, not with the tools
    from remecli.search.hits import SearchHit
    from remecli.search.index import MemoryIndex

DESCRIPTION = (
    "Search long-term memory — notes (MEMORY.md, memory/, digest/) and past conversations "
    "(sessions/*.jsonl transcripts) — with hybrid keyword + semantic retrieval. Returns a JSON "
    "list of hits with path, start_line, end_line, score, snippet, source, and the note's links "
    "(out/in, with names and descriptions); look at the links, then `read` only what matters. "
    "Scores mean the same in every search (1: a full match); `weak: true` marks a hit that "
    "barely matches — likely nothing relevant is stored. Timed claims in a hit are marked "
    "current or superseded (with what replaced them)."
)
MAX_RESULTS_CAP = 50
TOOL_SOURCES = {  # what the model may pass → the operation's source
    "": "",
    "all": "all",
    "notes": "notes",
    "transcripts": "transcripts",
    "transcript": "transcripts",
}


class IndexSearcher:
    """A bare `MemoryIndex` as the tool's memory (benchmarks and library use without a runtime)."""

    search_enabled = True

    def __init__(self, index: MemoryIndex, settings: Settings | None = None) -> None:
        self.index = index
        self.settings = settings or Settings(search=index.settings)
        self.layout = WorkingDir(index.working_dir)  # where the operation reads timed claims

    async def search_memory(self, request: SearchRequest, *, links: bool = True) -> list[SearchHit]:
        """The index's hits (no links: there is no graph)."""
        return await self.index.search(request)


def memory_search_schema(ops: JobContext) -> dict[str, Any]:
    """The tool's JSON schema, showing the configured defaults."""
    search = ops.memory.settings.search
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
            "as_of": {
                "type": "string",
                "description": "What was true on YYYY-MM-DD: timed claims valid then rank first "
                "(default: today; each hit's `claims` say which held, `superseded` what replaced "
                "them).",
            },
            "project": {
                "type": "string",
                "description": "Only memory recorded in this project (default: any; the "
                + (
                    f"current project, {ops.memory.settings.project}, ranks a little higher)."
                    if ops.memory.settings.project
                    else "current project ranks a little higher)."
                ),
            },
        },
        "required": ["query"],
    }


def _number(value: Any, kind: type[int] | type[float], low: float, high: float) -> Any:
    """A model's number argument, leniently read ("1.0", " 1 ") and clamped; None if unreadable
    (the operation then takes the configured default)."""
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return kind(min(max(number, low), high))


async def memory_search(
    ops: JobContext,
    query: str,
    max_results: int | None = None,
    min_score: float | None = None,
    source: str | None = None,
    since: str | None = None,
    until: str | None = None,
    project: str | None = None,
    as_of: str | None = None,
) -> ToolOutput:
    """Search long-term memory.

    Args:
        query: What to look for.
        max_results: How many hits to return.
        min_score: Drop hits scoring below this (0-1).
        source: notes, transcripts or all.
        since: Only hits dated on or after YYYY-MM-DD.
        until: Only hits dated on or before YYYY-MM-DD.
        project: Only memory recorded in this project.
        as_of: What was true on YYYY-MM-DD (default today).
    """
    where = str(source).strip().lower() if source else ""
    where = TOOL_SOURCES.get(where, where)
    if where not in TOOL_SOURCES.values():
        return error(f"memory_search: source must be notes, transcripts or all, got {source!r}")
    try:
        params = SearchRequest.model_validate(
            {
                "query": str(query),
                "max_results": _number(max_results, int, 1, MAX_RESULTS_CAP),
                "min_score": _number(min_score, float, 0.0, 1.0),
                "source": where or None,
                "since": str(since) if since else None,
                "until": str(until) if until else None,
                "project": str(project).strip() or None if project else None,
                "as_of": str(as_of).strip() or None if as_of else None,
            }
        )
    except ValidationError as exc:  # an empty query, a bad date: say what is accepted
        return error(describe_validation("memory_search", exc))
    try:
        result = await search_operation(ops, params)
    except (JobError, ValueError) as exc:
        return error(f"memory_search: {exc}")
    except Exception as exc:  # noqa: BLE001 - the model gets a message it can act on
        return error(f"memory_search failed ({exc}); read MEMORY.md or memory/*.md directly.")
    text = json.dumps([hit.to_dict() for hit in result.results], ensure_ascii=False)
    return ok(text)
