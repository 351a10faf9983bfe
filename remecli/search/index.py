"""`MemoryIndex`: the one facade the agent tool, the CLI and the library share: it opens the
parts and owns their lifetime; each concern is a side of it in its own module: syncing
(`index_sync.py`), embedding (`embedding_pass.py`), searching (`index_search.py`), watching
(`index_watch.py`).

Indexes notes (`MEMORY.md`, `memory/**/*.md`, `digest/**/*.md`) and transcripts
(`sessions/*.jsonl`) of a working dir into a derived folder (`<working_dir>/index/`, see
`parts.py`). `sync` is incremental (`sync.py`); `search` fuses BM25 and vector candidates and
filters by source and date (`ranking.py`). A damaged index is deleted and rebuilt, keyword side
first (`recovered` says so once); it never makes a search fail. Processes share the folder: one
writes at a time, the others follow its change marker before they search (`sharing.py`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from remecli.config.locations import Locations
from remecli.config.search import SearchSettings
from remecli.search.calibration import calibration_for
from remecli.search.chunker import MarkdownChunker
from remecli.search.embedders import Embedder, make_embedder
from remecli.search.index_parts import CLOSE_READ_BYTES, INDEX_FOLDER
from remecli.search.index_search import IndexSearch
from remecli.search.index_watch import IndexWatch
from remecli.search.keyword import KeywordIndex
from remecli.search.parts import open_or_rebuild
from remecli.search.query_vectors import QueryVectors
from remecli.search.sharing import SharedIndex
from remecli.search.space_wait import SpaceWait
from remecli.search.store import ChunkStore
from remecli.search.sync import Syncer
from remecli.search.vectors import VectorIndex
from remecli.search.watcher import Watch

log = logging.getLogger(__name__)

SCHEMA_VERSION = "2"


class MemoryIndex(IndexSearch, IndexWatch):
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
        self._writes = self._writes_read = 0  # writes noted here / of them, read by a sync
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

    # -- lifetime (syncing: index_sync.py, searching: index_search.py, watching:
    # index_watch.py) ------------------------------------------------------------------------

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
