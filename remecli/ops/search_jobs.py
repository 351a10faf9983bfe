"""Jobs over the search index and the runtime: memory_search, memory_reindex, memory_status.

`source` (notes | transcripts | all), `since`, `until` and `project` are the runtime's own
filters (with no `project`, the current project's hits rank a little higher); a
`source` that is none of those names is a path prefix (e.g. `memory/`), applied here to the
hits while over-fetching candidates so `max_results` still fills.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from pydantic import Field

from remecli.config.disk_full import disk_full_text, no_space_left
from remecli.knowledge.background.tasks import pending_dir_of
from remecli.ops.claim_marks import mark_claims
from remecli.ops.context import JobContext
from remecli.ops.errors import InvalidParams, Unavailable
from remecli.ops.host import MemoryHost
from remecli.ops.registry import JOBS, JobResult, NoParams
from remecli.search.hits import SearchHit
from remecli.search.request import SearchRequest as SearchRequest  # the job's params

if TYPE_CHECKING:
    from remecli.search import MemoryIndex

SOURCES = ("notes", "transcripts", "all")
OVERFETCH = 4
MAX_CANDIDATES = 200


class SearchResults(JobResult):
    query: str
    results: list[SearchHit] = Field(
        description="Hits, best first: path, start_line, end_line, score, snippet, source, "
        "links; `claims` (timed claims in the hit, each `valid` on as_of) and `superseded` "
        "(none held then: until, replaced_by) when the hit has timed claims"
    )


class ReindexResult(JobResult):
    files_seen: int
    files_changed: int
    files_removed: int
    chunks_added: int
    chunks_removed: int
    chunks_embedded: int
    embedding_error: str = Field(description="Why embedding failed ('': it did not)")
    notes: int = Field(description="Notes in the rebuilt link graph")
    transcript_pages: int = Field(
        description="Readable pages sessions/<id>.md rendered again from their transcripts"
    )


class StatusResult(JobResult):
    working_dir: str
    memory_md: bool
    daily_files: int
    index: dict[str, Any] | None = Field(description="Index counts (None: the index is not open)")
    index_state: str
    index_error: str
    embedding_backend: str
    pending_summaries: int


@JOBS.define("memory_search", params=SearchRequest, result=SearchResults, read_only=True)
async def memory_search(ctx: JobContext, params: SearchRequest) -> SearchResults:
    """Search the memory: notes (MEMORY.md, memory/, digest/) and past conversations.

    Hybrid BM25 + vector. Returns hits with path, 1-based line range, score, snippet, source,
    project and each note's links (out/in); read more with memory_read. `project` keeps only
    memory recorded in that project. Timed claims (`- claim (since DATE)`, struck-through
    `- ~~old~~ (FROM to UNTIL, replaced by "new")`) are marked valid or superseded on `as_of`.
    """
    if params.since and params.until and params.since > params.until:
        raise InvalidParams("`since` is after `until`; swap them")
    settings = ctx.memory.settings
    request = params.resolved(settings.search, settings.project)
    source = request.source
    prefix = source if source is not None and source not in SOURCES else None
    if prefix is not None:  # over-fetch: the prefix is applied to the hits, here
        update = {"source": None, "max_results": min(request.limit * OVERFETCH, MAX_CANDIDATES)}
        asked = request.model_copy(update=update)
    else:
        asked = request.model_copy(update={"source": None}) if source == "all" else request
    hits = await ctx.memory.search_memory(asked)
    if prefix is not None:
        hits = [hit for hit in hits if hit.path.startswith(prefix)]
    hits = hits[: request.limit]
    await asyncio.to_thread(mark_claims, hits, ctx.root, params.as_of)
    return SearchResults(query=params.query, results=hits)


def _index_or_fail(ctx: JobContext) -> MemoryIndex:
    index = ctx.memory.index
    if index is None:
        ready = ctx.memory.index_ready
        if not ready.is_set() and ctx.memory.search_enabled:
            raise Unavailable("the search index is still opening; retry in a moment")
        raise Unavailable(
            "the search index is not open (see logs/remecli.log); fix the cause and restart"
        )
    return index


def _rebuild_links(ctx: JobContext) -> int:
    """Parse every note again into the link graph (the runtime's, or one of our own)."""
    from remecli.notes.links import LinkGraph

    shared = ctx.memory.links
    if shared is not None:
        return shared.rebuild()
    graph = LinkGraph(ctx.root)
    try:
        return graph.rebuild()
    finally:
        graph.close()


@JOBS.define("memory_reindex", params=NoParams, result=ReindexResult, read_only=False)
async def memory_reindex(ctx: JobContext, params: NoParams) -> ReindexResult:
    """Rebuild the search index and the link graph from the Markdown files (the files
    themselves are not changed) and each transcript's readable page (sessions/<id>.md)."""
    from remecli.conversation.transcript_page import rebuild_all

    index = _index_or_fail(ctx)
    if no_space_left(index.folder):  # a rebuild deletes first: never over a full disk
        raise Unavailable(
            f"{disk_full_text(index.folder)}: the index is left as it is; free some space, "
            "then reindex"
        )
    report = await index.reindex(ctx.progress)
    pages = await asyncio.to_thread(rebuild_all, ctx.memory.layout.sessions_dir)
    notes = await asyncio.to_thread(_rebuild_links, ctx)
    finished = dt.datetime.now().astimezone().isoformat(timespec="seconds")
    index.parts.store.set_meta("last_reindex", finished)  # memory_health shows it
    return ReindexResult(**asdict(report), notes=notes, transcript_pages=pages)


def _index_state(memory: MemoryHost) -> str:
    if not memory.search_enabled:
        return "off"
    return "opening" if not memory.index_ready.is_set() else "failed (see logs/remecli.log)"


@JOBS.define("memory_status", params=NoParams, result=StatusResult, read_only=True)
async def memory_status(ctx: JobContext, params: NoParams) -> StatusResult:
    """Where the memory lives and its state: index counts, pending summaries, embeddings."""
    memory = ctx.memory
    index = memory.index
    pending_dir = pending_dir_of(memory.layout)
    pending = len(list(pending_dir.glob("*.json"))) if pending_dir.is_dir() else 0
    return StatusResult(
        working_dir=str(ctx.root),
        memory_md=memory.layout.memory_md.is_file(),
        daily_files=len(list(memory.layout.memory_dir.glob("*.md"))),
        index=index.stats() if index is not None else None,
        index_state="ready" if index is not None else _index_state(memory),
        index_error=index.last_error if index is not None else "",
        embedding_backend=memory.settings.search.embedding.backend,
        pending_summaries=pending,
    )
