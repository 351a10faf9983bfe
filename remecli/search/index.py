"""`MemoryIndex`: the one facade the agent tool, the CLI and the library share.

Indexes notes (`MEMORY.md`, `memory/**/*.md`, `digest/**/*.md`) and transcripts
(`sessions/*.jsonl`) of a working dir into a derived folder (`<working_dir>/index/`, see
`parts.py`). `sync` is incremental (`sync.py`); `search` fuses BM25 and vector candidates and
filters by source and date (`ranking.py`). A damaged index is deleted and rebuilt, keyword side
first (`recovered` says so once); it never makes a search fail.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

import numpy as np

from remecli.config.locations import Locations
from remecli.config.search import SearchSettings
from remecli.search.chunker import MarkdownChunker
from remecli.search.embedders import Embedder, EmbeddingError, make_embedder
from remecli.search.keyword import Filters, KeywordIndex
from remecli.search.parts import CORRUPTION_ERRORS, open_or_rebuild, remove_derived
from remecli.search.ranking import Candidates, rank, split_floor
from remecli.search.store import ChunkStore, day_number
from remecli.search.sync import Progress, Syncer
from remecli.search.transcripts import SOURCE as TRANSCRIPT
from remecli.search.types import (
    DateLike,
    SearchRequest,
    SearchResult,
    SearchVariant,
    SyncReport,
    build_search_request,
)
from remecli.search.vectors import VectorIndex

log = logging.getLogger(__name__)

INDEX_FOLDER = "index"
SCHEMA_VERSION = "2"
SOURCES = {"notes": "notes", "transcripts": TRANSCRIPT, "transcript": TRANSCRIPT}


def _day(value: DateLike, name: str) -> int | None:
    """A date given as YYYY-MM-DD (or a date) → YYYYMMDD; ValueError says what is wrong."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        value = value.date()
    if isinstance(value, str):
        try:
            value = dt.date.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"{name} must be a date like 2025-01-31, got {value!r}") from None
    return day_number(value.isoformat())


def make_filters(source: str | None, since: DateLike, until: DateLike) -> Filters:
    """Filters from the API's arguments (source notes|transcripts|all|None)."""
    if source not in (None, "", "all") and source not in SOURCES:
        raise ValueError(f"source must be notes, transcripts or all, got {source!r}")
    low, high = _day(since, "since"), _day(until, "until")
    if high is not None and low is None:
        low = 1  # undated chunks never fall inside a date range
    return Filters(SOURCES.get(source or ""), low, high)


class MemoryIndex:
    """Hybrid (BM25 + vector) search over a working dir's notes and transcripts."""

    def __init__(self, working_dir: Path, settings: SearchSettings, embedder: Embedder | None):
        self.working_dir = working_dir
        self.settings = settings
        self.embedder = embedder
        self.folder = Locations(working_dir).index_dir
        self.chunker = MarkdownChunker(settings.chunk_tokens, settings.chunk_overlap)
        self.syncer = Syncer(working_dir, settings, self.chunker, embedder, INDEX_FOLDER)
        self.recovered = ""  # set when a damaged index was rebuilt (one line for the user)
        self._write_lock = threading.RLock()  # one sync/reindex at a time
        self._parts_lock = threading.RLock()  # searches vs. swapping the parts
        self._query_cache: dict[tuple[str, str], np.ndarray] = {}
        self._needs_full_sync = False
        self._watch_task: asyncio.Task[None] | None = None
        self._stop_event: asyncio.Event | None = None
        self._open_parts()

    @classmethod
    def open(
        cls, working_dir: Path, settings: SearchSettings, *, embedder: Embedder | None = None
    ) -> MemoryIndex:
        """Open (or create, or rebuild if damaged) the index of `working_dir`."""
        working_dir = Path(working_dir).expanduser()
        if embedder is None:
            embedder = make_embedder(settings.embedding)
        return cls(working_dir, settings, embedder)

    @property
    def last_error(self) -> str:
        """The last embedding error ("" if none)."""
        return self.syncer.last_error

    # -- parts ---------------------------------------------------------------------------------

    def _embedder_key(self) -> str:
        if self.embedder is None:
            return "none"
        dims = self.settings.embedding.dimensions or self.embedder.dimensions
        return f"{self.embedder.model_id}|{dims}"

    def _meta(self) -> dict[str, str]:
        chunking = f"{self.settings.chunk_tokens}/{self.chunker.overlap_tokens}"
        return {"schema": SCHEMA_VERSION, "chunking": chunking}

    def _open_parts(self) -> None:
        self.parts, note = open_or_rebuild(self.folder, self._meta(), self._embedder_key())
        if note:
            self.recovered = note
            self._needs_full_sync = True

    @property
    def store(self) -> ChunkStore:
        """The chunk store of the open parts."""
        return self.parts.store

    @property
    def keyword(self) -> KeywordIndex:
        """The keyword index of the open parts."""
        return self.parts.keyword

    @property
    def vectors(self) -> VectorIndex | None:
        """The vector index of the open parts (None before the first vector)."""
        return self.parts.vectors

    def check_and_recover_blocking(self) -> bool:
        """Check the parts; if damaged, rebuild (keyword side first). True if it was damaged."""
        with self._write_lock:
            try:
                with self._parts_lock:
                    self.parts.check()
                return False
            except CORRUPTION_ERRORS as exc:
                self._rebuild(f"search index at {self.folder} is damaged ({exc}); rebuilding it")
                return True

    async def check_and_recover(self) -> bool:
        """`check_and_recover_blocking` off the event loop."""
        return await asyncio.to_thread(self.check_and_recover_blocking)

    def _rebuild(self, note: str) -> None:
        """Delete the damaged parts, reopen empty, index keywords now; embeddings follow."""
        log.warning(note)
        self.recovered = note
        with self._parts_lock:
            try:
                self.parts.close()
            except CORRUPTION_ERRORS:
                pass
            remove_derived(self.folder)
            self.parts, _ = open_or_rebuild(self.folder, self._meta(), self._embedder_key())
        self.syncer.sync(self.parts, embed=False)

    # -- syncing -------------------------------------------------------------------------------

    def memory_files(self) -> dict[str, Path]:
        """The Markdown notes to index (relative posix path → absolute path)."""
        return self.syncer.note_files()

    def transcript_files(self) -> dict[str, Path]:
        """The transcripts to index (relative posix path → absolute path)."""
        return self.syncer.transcript_files()

    def sync_blocking(
        self,
        progress: Progress | None = None,
        *,
        paths: Iterable[str] | None = None,
        embed: bool = True,
    ) -> SyncReport:
        """Bring the index up to date (only `paths`, relative to the working dir, if given)."""
        only = None if paths is None or self._needs_full_sync else set(paths)
        with self._write_lock:
            try:
                report = self.syncer.sync(self.parts, progress, only, embed)
            except CORRUPTION_ERRORS as exc:
                self._rebuild(f"search index at {self.folder} failed ({exc}); rebuilding it")
                report = self.syncer.sync(self.parts, progress, None, embed)
            self._needs_full_sync = False
            return report

    async def sync(
        self, progress: Progress | None = None, *, paths: Iterable[str] | None = None
    ) -> SyncReport:
        """Bring the index up to date: only changed files re-read, only new chunks embedded."""
        return await asyncio.to_thread(self.sync_blocking, progress, paths=paths)

    def reindex_blocking(self, progress: Progress | None = None) -> SyncReport:
        """Rebuild the index from scratch (embedding cache kept)."""
        with self._write_lock:
            with self._parts_lock:
                self.parts.close()
                remove_derived(self.folder)
                self._open_parts()
            return self.sync_blocking(progress)

    async def reindex(self, progress: Progress | None = None) -> SyncReport:
        """Rebuild the index from scratch, off the event loop."""
        return await asyncio.to_thread(self.reindex_blocking, progress)

    # -- searching -----------------------------------------------------------------------------

    def search_blocking(
        self,
        query: str,
        max_results: int | None = None,
        min_score: float | None = None,
        *,
        source: str | None = None,
        since: DateLike = None,
        until: DateLike = None,
    ) -> list[SearchResult]:
        """Search (blocking). `source`: notes|transcripts|all; `since`/`until`: YYYY-MM-DD,
        inclusive; a None limit or floor takes the settings' default (`build_search_request`)."""
        request = build_search_request(
            self.settings, query, max_results, min_score, source=source, since=since, until=until
        )
        return self.search_request_blocking(request)

    def search_request_blocking(self, request: SearchRequest) -> list[SearchResult]:
        """Hybrid search of one resolved request, best first (blocking)."""
        return self._search(request, SearchVariant(self.settings))

    def search_variant_blocking(
        self, request: SearchRequest, variant: SearchVariant
    ) -> list[SearchResult]:
        """`request` ranked by a variant (other settings, parts off): for measuring only."""
        return self._search(request, variant)

    def _search(self, request: SearchRequest, variant: SearchVariant) -> list[SearchResult]:
        filters = make_filters(request.source, request.since, request.until)
        if not request.query.strip():
            return []
        for attempt in (1, 2):
            try:
                with self._parts_lock:
                    return self._search_locked(request, filters, variant)
            except CORRUPTION_ERRORS as exc:
                if attempt == 2:
                    log.exception("search failed after rebuilding the index")
                    return []
                with self._write_lock:
                    self._rebuild(f"search index at {self.folder} failed ({exc}); rebuilding it")
        return []

    def _search_locked(
        self, request: SearchRequest, filters: Filters, variant: SearchVariant
    ) -> list[SearchResult]:
        query, max_results, min_score = request.query, request.max_results, request.min_score
        settings = variant.settings
        use_vector, use_keyword, rescore = variant.use_vector, variant.use_keyword, variant.rescore
        parts = self.parts
        limit = max_results * settings.candidate_multiplier
        found = Candidates()
        if use_keyword:
            # one hit more than the candidates: its score is the floor of the normalization
            # (BM25's natural floor, 0, when fewer words matched)
            hits = parts.keyword.search(query, limit + 1, filters)
            found.keyword, found.keyword_floor = split_floor(hits, limit, 0.0)
        vectors = parts.vectors
        if use_vector and self.embedder is not None and vectors is not None and len(vectors):
            allowed = None
            if filters.active():
                allowed = parts.store.ids_where(filters.source, filters.since, filters.until)
            try:
                query_vector = self._query_vector(query)
                hits = vectors.search(query_vector, limit + 1, allowed)
                # every vector is a candidate (a small corpus): cosine 0 is the floor
                found.vector, found.vector_floor = split_floor(hits, limit, 0.0)
                if rescore:
                    seen = {i for i, _ in found.vector}
                    missing = [i for i, _ in found.keyword if i not in seen]
                    found.rescored = vectors.scores_of(query_vector, missing)
            except EmbeddingError as exc:
                self.syncer.last_error = str(exc)
                log.warning("query embedding failed, using keyword search only: %s", exc)
        transcript_ids: set[int] = set()
        if settings.transcript_weight != 1.0 and filters.source != TRANSCRIPT:
            ids = {i for side in (found.keyword, found.vector, found.rescored) for i, _ in side}
            transcript_ids = parts.store.of_source(sorted(ids), TRANSCRIPT)
        return rank(found, parts.store.get_chunks, settings, max_results, min_score, transcript_ids)

    def _query_vector(self, query: str) -> np.ndarray:
        """The query's embedding; the last few queries are remembered (agents repeat them)."""
        assert self.embedder is not None
        key = (self._embedder_key(), query)
        vector = self._query_cache.get(key)
        if vector is None:
            vector = self.embedder.embed_query(query)
            if len(self._query_cache) >= 256:
                self._query_cache.pop(next(iter(self._query_cache)))
            self._query_cache[key] = vector
        return vector

    async def search(
        self,
        query: str,
        max_results: int | None = None,
        min_score: float | None = None,
        *,
        source: str | None = None,
        since: DateLike = None,
        until: DateLike = None,
    ) -> list[SearchResult]:
        """Hybrid search, best first (runs in a worker thread); see `search_blocking`."""
        request = build_search_request(
            self.settings, query, max_results, min_score, source=source, since=since, until=until
        )
        return await asyncio.to_thread(self.search_request_blocking, request)

    # -- watching and lifetime -----------------------------------------------------------------

    def is_indexed_path(self, rel: str) -> bool:
        """True for a relative path a sync would look at (a note or a transcript)."""
        if not rel or rel.split("/", 1)[0] == INDEX_FOLDER:
            return False
        return self.syncer.is_note(rel) or (
            self.settings.transcripts and self.syncer.is_transcript(rel)
        )

    def start_watching(
        self,
        debounce_ms: int | None = None,
        on_changed: Callable[[set[str]], Awaitable[object]] | None = None,
    ) -> None:
        """Watch the working dir and sync changed files (needs a running event loop); then
        `on_changed(paths)` lets other derived state (the link graph) follow the same burst."""
        from remecli.search.watcher import watch_and_sync

        if self._watch_task is not None and not self._watch_task.done():
            return

        async def sync_changed(changed: set[str]) -> None:
            await self.sync(paths=changed)
            if on_changed is not None:
                await on_changed(changed)

        self._stop_event = asyncio.Event()
        self._watch_task = asyncio.get_running_loop().create_task(
            watch_and_sync(
                self.working_dir,
                self.is_indexed_path,
                sync_changed,
                self._stop_event,
                debounce_ms or self.settings.watch_debounce_ms,
            )
        )

    async def stop(self) -> None:
        """Stop watching (waits for a sync in progress to finish)."""
        if self._stop_event is not None:
            self._stop_event.set()
        if self._watch_task is not None:
            try:
                await asyncio.wait_for(self._watch_task, timeout=10)
            except (TimeoutError, asyncio.CancelledError):
                self._watch_task.cancel()
            self._watch_task = None

    def stats(self) -> dict[str, int]:
        """Counts: files, chunks, vectors."""
        parts = self.parts
        return {
            "files": len(parts.store.files()),
            "chunks": parts.store.chunk_count(),
            "vectors": len(parts.vectors) if parts.vectors is not None else 0,
        }

    def request_stop(self) -> None:
        """Ask a sync in progress to stop embedding after its current batch (it resumes at the
        next sync: chunks without vectors stay searchable by keyword)."""
        self.syncer.stopping.set()

    def close(self) -> None:
        """Release files and databases (call `stop()` first if watching); a sync in progress
        stops embedding after its current batch."""
        self.request_stop()
        with self._write_lock, self._parts_lock:
            self.parts.close()
