"""Jobs over the search index and the runtime: memory_search, memory_reindex, memory_status.

`source`, `since` and `until` go to the runtime's `memory_search` when it accepts them; otherwise
they are applied here to the hits (path prefix; the date in the path, e.g. memory/2025-01-31.md,
else the file's modification date), over-fetching candidates so `max_results` still fills.
"""

from __future__ import annotations

import datetime as dt
import inspect
import re
from pathlib import Path
from typing import Any

from pydantic import Field

from remecli.jobs.context import JobContext
from remecli.jobs.errors import InvalidParams, Unavailable
from remecli.jobs.registry import JOBS, JobParams, NoParams
from remecli.memory.background import pending_dir_of

FILTERS = ("source", "since", "until")
OVERFETCH = 4
MAX_CANDIDATES = 200
_DATE_IN_PATH = re.compile(r"(\d{4}-\d{2}-\d{2})")


class SearchParams(JobParams):
    query: str = Field(min_length=1, max_length=2_000, description="What to look for")
    max_results: int | None = Field(
        None, ge=1, le=50, description="Most hits to return (default: search.max_results)"
    )
    min_score: float | None = Field(
        None, ge=0.0, le=1.0, description="Drop hits scoring below this (default: search.min_score)"
    )
    source: str | None = Field(
        None, max_length=200, description="Only hits whose path starts with this, e.g. memory/"
    )
    since: dt.date | None = Field(None, description="Only memory dated on or after (YYYY-MM-DD)")
    until: dt.date | None = Field(None, description="Only memory dated on or before (YYYY-MM-DD)")


def _accepted_filters(search: Any) -> set[str]:
    try:
        names = set(inspect.signature(search).parameters)
    except (TypeError, ValueError):
        return set()
    return names & set(FILTERS)


def _hit_date(root: Path, path: str) -> dt.date | None:
    found = _DATE_IN_PATH.search(path)
    if found:
        try:
            return dt.date.fromisoformat(found.group(1))
        except ValueError:
            pass
    try:
        return dt.date.fromtimestamp((root / path).stat().st_mtime)
    except OSError:
        return None


def _keep(hit: dict[str, Any], params: SearchParams, root: Path, filters: set[str]) -> bool:
    if "source" in filters and not str(hit.get("path", "")).startswith(params.source or ""):
        return False
    if filters & {"since", "until"}:
        day = _hit_date(root, str(hit.get("path", "")))
        if day is None:
            return False
        if "since" in filters and params.since and day < params.since:
            return False
        if "until" in filters and params.until and day > params.until:
            return False
    return True


@JOBS.define("memory_search", params=SearchParams, read_only=True)
async def memory_search(ctx: JobContext, params: SearchParams) -> dict[str, Any]:
    """Search the memory (hybrid BM25 + vector over MEMORY.md and memory/*.md).

    Returns hits with path, 1-based line range, score and snippet; read more with memory_read.
    """
    if params.since and params.until and params.since > params.until:
        raise InvalidParams("`since` is after `until`; swap them")
    settings = ctx.memory.settings.search
    limit = params.max_results or settings.max_results
    min_score = settings.min_score if params.min_score is None else params.min_score
    wanted = {name for name in FILTERS if getattr(params, name) is not None}
    native = _accepted_filters(ctx.memory.memory_search) & wanted
    local = wanted - native
    fetch = min(limit * OVERFETCH, MAX_CANDIDATES) if local else limit
    extra = {name: getattr(params, name) for name in native}
    hits = await ctx.memory.memory_search(params.query, fetch, min_score, **extra)
    if local:
        root = ctx.root
        hits = [hit for hit in hits if _keep(hit, params, root, local)]
    return {"query": params.query, "results": hits[:limit], "filtered_here": sorted(local)}


def _index_or_fail(ctx: JobContext) -> Any:
    index = ctx.memory.index
    if index is None:
        ready = ctx.memory.index_ready
        if ready is not None and not ready.is_set():
            raise Unavailable("the search index is still opening; retry in a moment")
        raise Unavailable(
            "the search index is not open (see logs/remecli.log); fix the cause and restart"
        )
    return index


@JOBS.define("memory_reindex", read_only=False)
async def memory_reindex(ctx: JobContext, params: NoParams) -> dict[str, Any]:
    """Rebuild the search index from the Markdown files (the files themselves are not changed)."""
    report = await _index_or_fail(ctx).reindex()
    return {
        "files_seen": report.files_seen,
        "chunks_added": report.chunks_added,
        "chunks_embedded": report.chunks_embedded,
        "embedding_error": report.embedding_error,
    }


def _index_state(memory: Any) -> str:
    if not memory.search_enabled:
        return "off"
    ready = memory.index_ready
    return (
        "opening" if ready is not None and not ready.is_set() else "failed (see logs/remecli.log)"
    )


@JOBS.define("memory_status", read_only=True)
async def memory_status(ctx: JobContext, params: NoParams) -> dict[str, Any]:
    """Where the memory lives and its state: index counts, pending summaries, embeddings."""
    memory = ctx.memory
    index = memory.index
    pending_dir = pending_dir_of(memory.layout)
    pending = len(list(pending_dir.glob("*.json"))) if pending_dir.is_dir() else 0
    return {
        "working_dir": str(ctx.root),
        "memory_md": memory.layout.memory_md.is_file(),
        "daily_files": len(list(memory.layout.memory_dir.glob("*.md"))),
        "index": index.stats() if index is not None else None,
        "index_state": "ready" if index is not None else _index_state(memory),
        "index_error": getattr(index, "last_error", "") if index is not None else "",
        "embedding_backend": memory.settings.search.embedding.backend,
        "pending_summaries": pending,
    }
