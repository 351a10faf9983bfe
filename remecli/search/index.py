"""`MemoryIndex`: the one facade the agent tool, the CLI and the library share.

Indexes notes (`MEMORY.md`, `memory/**/*.md`, `digest/**/*.md`) and transcripts
(`sessions/*.jsonl`) of a working dir into a derived folder (`<working_dir>/index/`, see
`parts.py`). `sync` is incremental (`sync.py`); `search` fuses BM25 and vector candidates and
filters by source and date (`ranking.py`). A damaged index is deleted and rebuilt, keyword side
first (`recovered` says so once); it never makes a search fail. Processes share the folder: one
writes at a time, the others follow its change marker before they search (`sharing.py`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

import numpy as np

from remecli.config.locations import Locations
from remecli.config.search import SearchSettings
from remecli.search.calibration import calibration_for
from remecli.search.chunker import MarkdownChunker
from remecli.search.decompose import sub_queries
from remecli.search.embedders import Embedder, make_embedder
from remecli.search.embedding_pass import EmbeddingPasses
from remecli.search.filters import make_filters
from remecli.search.hits import SearchHit
from remecli.search.index_parts import CLOSE_READ_BYTES
from remecli.search.keyword import KeywordIndex
from remecli.search.parts import CORRUPTION_ERRORS as DAMAGE
from remecli.search.parts import open_or_rebuild
from remecli.search.query_vectors import QueryVectors
from remecli.search.request import SearchRequest
from remecli.search.searching import search_parts
from remecli.search.sharing import SharedIndex
from remecli.search.space_wait import SpaceWait
from remecli.search.store import ChunkStore
from remecli.search.sync import Progress, Syncer
from remecli.search.types import SearchVariant, SyncReport
from remecli.search.vectors import VectorIndex
from remecli.search.watcher import Watch

log = logging.getLogger(__name__)

INDEX_FOLDER = "index"
SCHEMA_VERSION = "2"


class MemoryIndex(EmbeddingPasses):
    """Hybrid (BM25 + vector) search over a working dir's notes and transcripts."""

    def __init__(
        self,
        working_dir: Path,
        settings: SearchSettings,
        embedder: Embedder | None,
        *,
        embed_on_demand: bool = False,
        folder: Path | None = None,
    ):
        self.working_dir = working_dir
        self.settings = settings
        self.embedder = embedder
        self.calibration = calibration_for(embedder)  # the vector side's absolute scale
        self.folder = folder or Locations(working_dir).index_dir  # another: a read-only memory
        self.shared = SharedIndex(self.folder)
        self.space = SpaceWait(self.folder)  # a full disk is waited out, never taken for damage
        self.chunker = MarkdownChunker(settings.chunk_tokens, settings.chunk_overlap)
        self.syncer = Syncer(working_dir, settings, self.chunker, embedder, INDEX_FOLDER)
        self._write_lock = threading.RLock()  # one sync/reindex at a time (not embedding)
        self._parts_lock = threading.RLock()  # searches vs. swapping the parts
        self._written, self._written_lock = set[str](), threading.Lock()
        self.queries = None if embedder is None else QueryVectors(embedder, self._embedder_key)
        self.watch = Watch()  # `watch.running()`: whether changes on disk are followed
        self.watched: Callable[[str], bool] = self.is_indexed_path  # what the watcher reports
        self.parts, note = open_or_rebuild(self.folder, self._meta(), self._embedder_key())
        self._seen = self.shared.read()  # the change marker the open parts reflect
        self.recovered = note  # a damaged index was rebuilt: one line for the user ("" if not)
        self._needs_full_sync = bool(note)
        # embed_on_demand: a model not loaded yet loads at the first search, not at a sync
        self._embedding_wanted = threading.Event()
        if not embed_on_demand:
            self._embedding_wanted.set()
        self._embedding_thread: threading.Thread | None = None
        self._embedding, self._embedding_due = threading.Lock(), threading.Event()
        self.closed = False  # `close()` was called

    @classmethod
    def open(
        cls,
        working_dir: Path,
        settings: SearchSettings,
        *,
        embedder: Embedder | None = None,
        embed_on_demand: bool = False,
        long_lived: bool = False,
        folder: Path | None = None,
    ) -> MemoryIndex:
        """Open (or create, or rebuild if damaged) the index of `working_dir`.

        `embed_on_demand` (the chat app): while the local model is not loaded, syncs leave new
        chunks without vectors (keyword search finds them) and the first search loads the model
        and embeds them in a background thread, so an idle app never pays the model's memory.
        `long_lived` (a process that follows changes): `prepare_to_follow` before returning.
        `folder`: keep the index there instead of `<working_dir>/index` (a read-only memory is
        searched from a temporary copy)."""
        working_dir = Path(working_dir).expanduser()
        if embedder is None:
            embedder = make_embedder(settings.embedding)
        index = cls(working_dir, settings, embedder, embed_on_demand=embed_on_demand, folder=folder)
        if long_lived:
            index.prepare_to_follow()
        return index

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
        """Bring the index up to date (only `paths`, relative to the working dir, if given, and
        the files `note_written` named): the keyword side committed first, then (`embed`) the
        vectors, without the write lock (`EmbeddingPasses`)."""
        only = None if paths is None or self._needs_full_sync else set(paths)
        with self._write_lock:
            if self.closed:  # a late sync (a write's, the watcher's): the files stay announced
                return SyncReport()
            try:
                if only is not None and self._nothing_to_read(only):
                    report = SyncReport()
                else:
                    report = self._sync_files(progress, only)
            except DAMAGE as exc:
                if self.space.full(exc):  # the index stays as it was; the next sync reads all
                    self._needs_full_sync = True
                    return SyncReport()
                self._rebuild(f"search index at {self.folder} failed ({exc}); rebuilding it")
                report = self._sync_files(progress, None)
            self._needs_full_sync = False
            self.space.back()
        if embed:
            self._embed(report, progress)
        return report

    def _sync_files(self, progress: Progress | None, only: set[str] | None) -> SyncReport:
        """Read changed files into the parts as the one writer of the folder; announce it."""
        with self.shared.writer():
            written = self._take_written()  # what was written while we waited for the lock
            self.follow_others()
            only = None if only is None else only | written
            report = self.syncer.sync(self.parts, progress, only, embed=False)
            if report.files_changed or report.files_removed:
                self._seen = self.shared.bump()
        return report

    async def sync(
        self, progress: Progress | None = None, *, paths: Iterable[str] | None = None
    ) -> SyncReport:
        """Bring the index up to date: only changed files re-read, only new chunks embedded."""
        return await asyncio.to_thread(self.sync_blocking, progress, paths=paths)

    def reindex_blocking(self, progress: Progress | None = None) -> SyncReport:
        """Rebuild the index from scratch (embedding cache kept), vectors included."""
        self._embedding_wanted.set()  # an explicit rebuild loads the model
        with self._write_lock:
            if self.closed:
                return SyncReport()
            with self.shared.writer():
                self._replace_parts()
                self._seen = self.shared.bump(rebuilt=True)
        return self.sync_blocking(progress)

    async def reindex(self, progress: Progress | None = None) -> SyncReport:
        """Rebuild the index from scratch, off the event loop."""
        return await asyncio.to_thread(self.reindex_blocking, progress)

    # -- searching -----------------------------------------------------------------------------

    def search_blocking(self, request: SearchRequest) -> list[SearchHit]:
        """Hybrid search of `request`, best first, in this thread (a None limit or floor takes
        the settings' default: `SearchRequest.resolved`)."""
        return self._search(request.resolved(self.settings), SearchVariant(self.settings))

    def search_variant_blocking(
        self, request: SearchRequest, variant: SearchVariant
    ) -> list[SearchHit]:
        """`request` ranked by a variant (other settings, parts off): for measuring only."""
        return self._search(request.resolved(self.settings), variant)

    def want_embedding(self, wait: bool = False) -> None:
        """Load the model and embed what the syncs left without vectors: in the background at
        the first search of an `embed_on_demand` index (the search goes on with what is
        there); `wait` (a one-shot search) joins that work."""
        if not self._embedding_wanted.is_set() and self.embedder is not None:
            self._embedding_wanted.set()

            def embed_pending() -> None:
                try:
                    if not self.syncer.stopping.is_set():
                        self._embed(SyncReport(), None)
                        self.load_model()  # when another process was the one embedding
                except Exception:  # the next sync tries again; keyword search works meanwhile
                    log.exception("embedding the chunks left without vectors failed")

            self._embedding_thread = threading.Thread(
                target=embed_pending, name="remecli-embed", daemon=True
            )
            self._embedding_thread.start()
        if wait and self._embedding_thread is not None:
            self._embedding_thread.join()

    def _search(self, request: SearchRequest, variant: SearchVariant) -> list[SearchHit]:
        filters = make_filters(request.source, request.since, request.until)
        if not request.query.strip():
            return []
        self.want_embedding()
        embed = self._query_vectors(request, variant)
        for attempt in (1, 2):
            try:
                with self._parts_lock:  # not closed meanwhile: closed parts are not damage
                    if self.closed:
                        return []
                    self.follow_others()
                    asked = (request, filters, variant, embed, self._query_failed)
                    return search_parts(self.parts, *asked, self.calibration)
            except DAMAGE as exc:
                if self.space.full(exc):  # not damage: what is indexed stays
                    return []
                if attempt == 2:
                    log.exception("search failed after rebuilding the index")
                    return []
                with self._write_lock:
                    self._rebuild(f"search index at {self.folder} failed ({exc}); rebuilding it")
        return []

    def _query_failed(self, error: str) -> None:
        self.syncer.last_error = error
        log.warning("query embedding failed, using keyword search only: %s", error)

    def _query_vectors(
        self, request: SearchRequest, variant: SearchVariant
    ) -> Callable[[str], np.ndarray] | None:
        """What the search calls for query embeddings (None: keyword only): computed before it
        takes the parts lock once the index has vectors (until then no search loads a model)."""
        vectors = self.parts.vectors
        if self.queries is None or not variant.use_vector or vectors is None or not len(vectors):
            return self.queries
        parts = sub_queries(request.query) if variant.settings.query_parts else []
        return self.queries.ahead([request.query, *parts])

    async def search(self, request: SearchRequest) -> list[SearchHit]:
        """Hybrid search of `request`, best first, in a worker thread (`search_blocking`)."""
        return await asyncio.to_thread(self.search_blocking, request)

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
        """Watch the working dir and sync changed files (needs a running event loop); first
        `on_changed(paths)` lets other derived state (the link graph) follow the same burst."""

        async def sync_changed(changed: set[str]) -> None:
            if on_changed is not None:  # the quick one first (the index may embed for long)
                await on_changed(changed)
            await self.sync(paths=changed)

        debounce = debounce_ms or self.settings.watch_debounce_ms
        self.watch.start(self.working_dir, self.watched, sync_changed, debounce)

    async def stop(self) -> None:
        """Stop watching (waits for a sync in progress to finish)."""
        await self.watch.stop()

    def request_stop(self) -> None:
        """Ask a sync in progress to stop embedding after its current batch (it resumes at the
        next sync: chunks without vectors stay searchable by keyword)."""
        self.syncer.stopping.set()

    def close(self) -> None:
        """Read up to CLOSE_READ_BYTES of the files this process wrote (keyword side; the rest at
        the next sync), release files and databases; a running sync stops after its step."""
        self.request_stop()
        self.wait_for_embedding()  # it stops after its current batch and stores it
        with self._write_lock:
            if self.closed:
                return
            if self._written and not self._needs_full_sync:  # a write's own sync may not have
                self.syncer.stopping.clear()  # run yet: others see it now (a bounded read)
                self._read_budget = CLOSE_READ_BYTES
                try:
                    self.sync_blocking(paths=(), embed=False)
                except Exception:
                    log.exception("indexing this process's last writes failed")
                self.request_stop()
            with self._parts_lock:
                self.closed = True
                self.parts.close()
