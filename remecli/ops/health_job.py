"""memory_health: how well the search index covers the files (files, chunks, embedded share,
stale and unembedded files, last reindex, last dream), and memory_stamp: a cheap marker that
changes whenever a memory file or folder does (what a page polls to stay live)."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

from pydantic import Field

from remecli.knowledge.background.tasks import pending_dir_of
from remecli.knowledge.dream.state import Catalog
from remecli.ops.context import JobContext
from remecli.ops.registry import JOBS, JobParams, JobResult

LAST_REINDEX = "last_reindex"
MAX_LISTED = 200
STAMP_FOLDERS = ("memory", "digest", "sessions", "resource")


class HealthResult(JobResult):
    index_state: str = Field(description="ready, opening, off, or failed")
    index_error: str = Field(description="The index's last error ('' when none)")
    embedding_backend: str
    files_on_disk: int = Field(description="Files the index should hold (notes and transcripts)")
    files_indexed: int
    chunks: int
    vectors: int
    embedded_share: float | None = Field(
        description="vectors / the chunks meant to have one now (None: embeddings off)"
    )
    stale: list[str] = Field(description="Files changed on disk since the index read them")
    missing: list[str] = Field(description="Files on disk the index has not read yet")
    gone: list[str] = Field(description="Files the index still holds that are not on disk")
    unembedded: list[str] = Field(description="Files with chunks still waiting for a vector")
    being_written: list[str] = Field(
        default_factory=list,
        description="Live transcripts whose last chunk gets its vector once they are quiet",
    )
    last_reindex: str | None = Field(description="When memory_reindex last finished (ISO)")
    last_dream: str | None = Field(description="When Auto Dream last succeeded (ISO)")
    pending_summaries: int


class StampParams(JobParams["StampResult"]):
    paths: list[str] = Field(
        default_factory=list, max_length=20, description="Files whose changes count too"
    )


class StampResult(JobResult):
    stamp: str = Field(description="Changes whenever a memory folder or one of `paths` does")


def _stat_key(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _coverage(ctx: JobContext) -> dict[str, object]:
    from remecli.search.embedding_sync import embeddable  # the index is open: search is loaded

    index = ctx.memory.index
    if index is None:
        return {"files_on_disk": 0, "files_indexed": 0, "chunks": 0, "vectors": 0}
    on_disk = {**index.memory_files(), **index.transcript_files()}
    indexed = index.parts.store.files()
    stale, missing = [], []
    for rel, path in on_disk.items():
        known = indexed.get(rel)
        if known is None:
            missing.append(rel)
        elif _stat_key(path) != (known[1], known[2]):
            stale.append(rel)
    counts = index.stats()
    search = ctx.memory.settings.search
    backend = search.embedding.backend
    without = index.parts.store.without_vectors() if backend != "none" else []
    waiting = embeddable(index.parts, search, without)  # what an embedding pass would embed
    later = {s.id for s in without} - {s.id for s in waiting}
    open_chunks = [s for s in without if s.id in later] if search.embed_transcripts else []
    meant = counts["vectors"] + len(waiting)  # never-embedded transcripts and open chunks not
    return {
        "files_on_disk": len(on_disk),
        "files_indexed": counts["files"],
        "chunks": counts["chunks"],
        "vectors": counts["vectors"],
        "embedded_share": (
            round(counts["vectors"] / meant, 4) if backend != "none" and meant else None
        ),
        "stale": stale[:MAX_LISTED],
        "missing": missing[:MAX_LISTED],
        "gone": sorted(set(indexed) - set(on_disk))[:MAX_LISTED],
        "unembedded": sorted({s.chunk.path for s in waiting})[:MAX_LISTED],
        "being_written": sorted({s.chunk.path for s in open_chunks})[:MAX_LISTED],
        "last_reindex": index.parts.store.get_meta(LAST_REINDEX),
    }


def _health(ctx: JobContext) -> HealthResult:
    memory = ctx.memory
    index = memory.index
    if index is not None:
        state = "ready"
    elif not memory.search_enabled:
        state = "off"
    else:
        state = "opening" if not memory.index_ready.is_set() else "failed"
    dreamed = Catalog.load(memory.layout).last_success_time()
    pending_dir = pending_dir_of(memory.layout)
    return HealthResult.model_validate(
        {
            "index_state": state,
            "index_error": index.last_error if index is not None else "",
            "embedding_backend": memory.settings.search.embedding.backend,
            "embedded_share": None,
            "stale": [],
            "missing": [],
            "gone": [],
            "unembedded": [],
            "last_reindex": None,
            **_coverage(ctx),
            "last_dream": dreamed.isoformat(timespec="seconds") if dreamed else None,
            "pending_summaries": len(list(pending_dir.glob("*.json")))
            if pending_dir.is_dir()
            else 0,
        }
    )


class HealthParams(JobParams[HealthResult]):
    """No parameters."""


@JOBS.define("memory_health", params=HealthParams, result=HealthResult, read_only=True)
async def memory_health(ctx: JobContext, params: HealthParams) -> HealthResult:
    """How well the search index covers the memory: files, chunks, the embedded share, files
    that changed since they were indexed or wait for a vector, the last reindex and dream."""
    return await asyncio.to_thread(_health, ctx)


def _stamp(root: Path, paths: list[str]) -> str:
    digest = hashlib.sha256()
    for rel in ("MEMORY.md", *paths):
        digest.update(f"{rel}:{_stat_key(root / rel)}\n".encode())
    for folder in STAMP_FOLDERS:  # a folder's mtime moves when a file in it is added,
        top = root / folder  # removed or atomically replaced (how the writer writes)
        if not top.is_dir():
            continue
        for here, dirs, _ in os.walk(top):
            digest.update(f"{here}:{_stat_key(Path(here))}\n".encode())
            dirs.sort()
    return digest.hexdigest()[:32]


@JOBS.define("memory_stamp", params=StampParams, result=StampResult, read_only=True)
async def memory_stamp(ctx: JobContext, params: StampParams) -> StampResult:
    """A marker that changes when memory does: a file added, removed or replaced in a memory
    folder, or any change to MEMORY.md or to one of `paths` (poll it; it reads no file)."""
    paths = [ctx.confine(raw).relative for raw in params.paths]
    return StampResult(stamp=await asyncio.to_thread(_stamp, ctx.root, paths))
