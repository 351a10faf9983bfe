"""`MemoryIndex`: the one facade the agent tool, the CLI and the library share.

Indexes `MEMORY.md` and `memory/**/*.md` of a working dir into a derived folder
(`<working_dir>/index/`): a SQLite chunk store, a whoosh BM25 index and an in-memory faiss index
rebuilt from stored vectors. `sync` is incremental (content hashes per file; unchanged chunks
keep their id and vector; embeddings come from an on-disk cache when the text was seen before).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from remecli.config.search import SearchSettings
from remecli.search.cache import EmbeddingCache, cache_key
from remecli.search.chunker import MarkdownChunker
from remecli.search.embedders import Embedder, EmbeddingError, make_embedder
from remecli.search.fusion import fuse
from remecli.search.keyword import KeywordIndex
from remecli.search.store import ChunkStore, StoredChunk
from remecli.search.types import Chunk, SearchResult, SyncReport
from remecli.search.vectors import VectorIndex

log = logging.getLogger(__name__)

INDEX_FOLDER = "index"
SCHEMA_VERSION = "1"
SNIPPET_CHARS = 700
_KEYWORD_BATCH = 5_000
Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class _PendingWrites:
    """Keyword-index changes and file hashes collected during a sync, applied in batches."""

    remove_paths: list[str] = field(default_factory=list)
    remove_ids: list[int] = field(default_factory=list)
    add: list[tuple[int, str, str, str]] = field(default_factory=list)
    files: list[tuple[str, str, int, int]] = field(default_factory=list)

    def clear(self) -> None:
        self.remove_paths.clear()
        self.remove_ids.clear()
        self.add.clear()
        self.files.clear()


def embedding_text(chunk: Chunk) -> str:
    """What is embedded: the chunk, preceded by its heading path when the heading is not in it."""
    if chunk.headings and not chunk.text.lstrip().startswith("#"):
        return f"{chunk.heading_path}\n{chunk.text}"
    return chunk.text


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class MemoryIndex:
    """Hybrid (BM25 + vector) search over a working dir's Markdown memory."""

    def __init__(self, working_dir: Path, settings: SearchSettings, embedder: Embedder | None):
        self.working_dir = working_dir
        self.settings = settings
        self.embedder = embedder
        self.folder = working_dir / INDEX_FOLDER
        self.chunker = MarkdownChunker(settings.chunk_tokens, settings.chunk_overlap)
        self.last_error = ""
        self._write_lock = threading.RLock()  # one sync/reindex at a time
        self._parts_lock = threading.RLock()  # searches vs. swapping the parts during reindex
        self._query_cache: dict[tuple[str, str], np.ndarray] = {}
        self._watch_task: asyncio.Task | None = None
        self._stop_event: asyncio.Event | None = None
        self._open_parts()

    @classmethod
    def open(
        cls, working_dir: Path, settings: SearchSettings, *, embedder: Embedder | None = None
    ) -> MemoryIndex:
        """Open (or create) the index of `working_dir`. Without `embedder`, settings pick one."""
        working_dir = Path(working_dir).expanduser()
        if embedder is None:
            embedder = make_embedder(settings.embedding)
        return cls(working_dir, settings, embedder)

    # -- parts ---------------------------------------------------------------------------------

    def _embedder_key(self) -> str:
        if self.embedder is None:
            return "none"
        dims = self.settings.embedding.dimensions or self.embedder.dimensions
        return f"{self.embedder.model_id}|{dims}"

    def _open_parts(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.store = ChunkStore(self.folder / "chunks.sqlite")
        chunking = f"{self.settings.chunk_tokens}/{self.chunker.overlap_tokens}"
        if self.store.get_meta("schema") not in (None, SCHEMA_VERSION) or self.store.get_meta(
            "chunking"
        ) not in (None, chunking):
            self.store.close()
            self._remove_derived()
            self.store = ChunkStore(self.folder / "chunks.sqlite")
        self.store.set_meta("schema", SCHEMA_VERSION)
        self.store.set_meta("chunking", chunking)
        if self.store.get_meta("embedder") != self._embedder_key():
            self.store.clear_vectors()
            self.store.set_meta("embedder", self._embedder_key())
        self.keyword = KeywordIndex(self.folder / "bm25")
        self.cache = EmbeddingCache(self.folder / "embedding_cache.sqlite")
        self.vectors: VectorIndex | None = None
        ids, matrix = self.store.all_vectors()
        if matrix is not None:
            self.vectors = VectorIndex(matrix.shape[1])
            self.vectors.add(ids, matrix)

    def _remove_derived(self) -> None:
        """Delete the chunk store and keyword index (the embedding cache is kept)."""
        for name in ("chunks.sqlite", "chunks.sqlite-wal", "chunks.sqlite-shm"):
            (self.folder / name).unlink(missing_ok=True)
        shutil.rmtree(self.folder / "bm25", ignore_errors=True)

    def _close_parts(self) -> None:
        self.keyword.close()
        self.store.close()
        self.cache.close()

    # -- syncing -------------------------------------------------------------------------------

    def memory_files(self) -> dict[str, Path]:
        """The files to index (relative posix path → absolute path), per the patterns."""
        found: dict[str, Path] = {}
        for pattern in self.settings.patterns:
            for path in self.working_dir.glob(pattern):
                rel = path.relative_to(self.working_dir)
                if path.is_file() and rel.parts[0] != INDEX_FOLDER:
                    found[rel.as_posix()] = path
        return dict(sorted(found.items()))

    def sync_blocking(self, progress: Progress | None = None) -> SyncReport:
        """Bring the index up to date with the files (blocking; see `sync`)."""
        with self._write_lock:
            report = SyncReport()
            files = self.memory_files()
            known = self.store.files()
            report.files_seen = len(files)
            batch = _PendingWrites()
            for rel in sorted(set(known) - set(files)):
                ids = self.store.remove_file(rel)
                batch.remove_paths.append(rel)
                if self.vectors is not None:
                    self.vectors.remove(ids)
                report.files_removed += 1
                report.chunks_removed += len(ids)
            for done, (rel, path) in enumerate(files.items(), start=1):
                self._sync_file(rel, path, known.get(rel), report, batch)
                if len(batch.add) >= _KEYWORD_BATCH:
                    self._flush(batch)
                if progress:
                    progress("reading", done, len(files))
            self._flush(batch)
            self._embed_missing(report, progress)
            return report

    def _flush(self, batch: _PendingWrites) -> None:
        """Apply keyword changes, then record the files' hashes (so a crash means a re-read)."""
        self.keyword.replace(batch.remove_paths, batch.add, batch.remove_ids)
        for row in batch.files:
            self.store.set_file(*row)
        batch.clear()

    def _sync_file(
        self,
        rel: str,
        path: Path,
        known: tuple[str, int, int] | None,
        report: SyncReport,
        batch: _PendingWrites,
    ) -> None:
        try:
            stat = path.stat()
            if known and (known[1], known[2]) == (stat.st_mtime_ns, stat.st_size):
                return
            data = path.read_bytes()
        except OSError as exc:
            log.warning("cannot read %s: %s", path, exc)
            return
        content_hash = hashlib.sha256(data).hexdigest()
        if known and known[0] == content_hash:
            self.store.set_file(rel, content_hash, stat.st_mtime_ns, stat.st_size)
            return
        report.files_changed += 1
        chunks = self.chunker.chunk(rel, data.decode("utf-8", errors="replace"))
        old_by_key: dict[tuple[str, tuple[str, ...]], list[StoredChunk]] = {}
        for stored in self.store.chunks_of(rel):
            old_by_key.setdefault((stored.text_hash, stored.chunk.headings), []).append(stored)
        moved: list[tuple[int, int, int]] = []
        add: list[tuple[Chunk, str]] = []
        for chunk in chunks:
            text_hash = _hash(chunk.text)
            same = old_by_key.get((text_hash, chunk.headings))
            if same:
                kept = same.pop(0)
                if (kept.chunk.start_line, kept.chunk.end_line) != (
                    chunk.start_line,
                    chunk.end_line,
                ):
                    moved.append((kept.id, chunk.start_line, chunk.end_line))
            else:
                add.append((chunk, text_hash))
        remove_ids = [s.id for rest in old_by_key.values() for s in rest]
        new_ids = self.store.update_chunks(remove_ids, moved, add)
        batch.add += [
            (i, rel, c.text, f"{rel} {c.heading_path}")
            for i, (c, _) in zip(new_ids, add, strict=True)
        ]
        batch.remove_ids += remove_ids
        batch.files.append((rel, content_hash, stat.st_mtime_ns, stat.st_size))
        if self.vectors is not None:
            self.vectors.remove(remove_ids)
        report.chunks_added += len(add)
        report.chunks_removed += len(remove_ids)

    def _embed_missing(self, report: SyncReport, progress: Progress | None) -> None:
        if self.embedder is None:
            return
        pending = self.store.without_vectors()
        if not pending:
            return
        texts = [embedding_text(s.chunk) for s in pending]
        dims = self.settings.embedding.dimensions or self.embedder.dimensions
        keys = [cache_key(self.embedder.model_id, dims, t) for t in texts]
        cached = self.cache.get_many(keys)
        missing = [k for k, key in enumerate(keys) if key not in cached]
        batch = max(self.settings.embedding.batch_size, 1)
        try:
            for start in range(0, len(missing), batch):
                part = missing[start : start + batch]
                matrix = self.embedder.embed_documents([texts[k] for k in part])
                self.cache.put_many([(keys[k], row) for k, row in zip(part, matrix, strict=True)])
                cached.update({keys[k]: row for k, row in zip(part, matrix, strict=True)})
                report.chunks_embedded += len(part)
                if progress:
                    progress("embedding", start + len(part), len(missing))
        except EmbeddingError as exc:
            report.embedding_error = self.last_error = str(exc)
            log.warning("embedding failed, keyword search still works: %s", exc)
        ready = [(s.id, cached[key]) for s, key in zip(pending, keys, strict=True) if key in cached]
        if not ready:
            return
        self.store.set_vectors(ready)
        if self.vectors is None:
            self.vectors = VectorIndex(len(ready[0][1]))
        ids = [i for i, _ in ready]
        self.vectors.add(ids, np.vstack([v for _, v in ready]))

    async def sync(self, progress: Progress | None = None) -> SyncReport:
        """Bring the index up to date: only changed files re-read, only new chunks embedded."""
        return await asyncio.to_thread(self.sync_blocking, progress)

    def reindex_blocking(self, progress: Progress | None = None) -> SyncReport:
        """Rebuild the index from scratch (embedding cache kept)."""
        with self._write_lock:
            with self._parts_lock:
                self._close_parts()
                self._remove_derived()
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
        method: str | None = None,
        use_vector: bool = True,
        use_keyword: bool = True,
        rescore: bool = True,
    ) -> list[SearchResult]:
        """Search (blocking). `method` overrides settings.fusion; the `use_*` and `rescore`
        flags are for measuring variants."""
        with self._parts_lock:
            return self._search_locked(
                query, max_results, min_score, method, use_vector, use_keyword, rescore
            )

    def _search_locked(
        self, query, max_results, min_score, method, use_vector, use_keyword, rescore
    ) -> list[SearchResult]:
        max_results = max_results or self.settings.max_results
        min_score = self.settings.min_score if min_score is None else min_score
        limit = max_results * self.settings.candidate_multiplier
        if not query.strip():
            return []
        keyword = self.keyword.search(query, limit) if use_keyword else []
        vector: list[tuple[int, float]] = []
        rescored: list[tuple[int, float]] = []
        if (
            use_vector
            and self.embedder is not None
            and self.vectors is not None
            and len(self.vectors)
        ):
            try:
                query_vector = self._query_vector(query)
                vector = self.vectors.search(query_vector, limit)
                found = {i for i, _ in vector}
                if rescore:
                    missing = [i for i, _ in keyword if i not in found]
                    rescored = self.vectors.scores_of(query_vector, missing)
            except EmbeddingError as exc:
                self.last_error = str(exc)
                log.warning("query embedding failed, using keyword search only: %s", exc)
        fused = fuse(
            vector, keyword, method or self.settings.fusion, self.settings.vector_weight, rescored
        )
        fused = [f for f in fused if f.score >= min_score]
        chunks = self.store.get_chunks([f.chunk_id for f in fused[: max_results * 2]])
        results: list[SearchResult] = []
        for item in fused:
            chunk = chunks.get(item.chunk_id)
            if chunk is None:
                continue
            results.append(
                SearchResult(
                    path=chunk.path,
                    start_line=chunk.start_line,
                    end_line=chunk.end_line,
                    score=item.score,
                    snippet=chunk.text[:SNIPPET_CHARS],
                    signals=sorted(item.signals),
                    heading_path=chunk.heading_path,
                )
            )
            if len(results) >= max_results:
                break
        return results

    def _query_vector(self, query: str) -> np.ndarray:
        """The query's embedding; the last few queries are remembered (agents repeat them)."""
        key = (self._embedder_key(), query)
        vector = self._query_cache.get(key)
        if vector is None:
            vector = self.embedder.embed_query(query)
            if len(self._query_cache) >= 256:
                self._query_cache.pop(next(iter(self._query_cache)))
            self._query_cache[key] = vector
        return vector

    async def search(
        self, query: str, max_results: int | None = None, min_score: float | None = None
    ) -> list[SearchResult]:
        """Hybrid search, best first (runs in a worker thread)."""
        return await asyncio.to_thread(self.search_blocking, query, max_results, min_score)

    # -- watching and lifetime -----------------------------------------------------------------

    def start_watching(self, debounce_ms: int | None = None) -> None:
        """Watch the working dir and sync on Markdown changes (needs a running event loop)."""
        from remecli.search.watcher import watch_and_sync

        if self._watch_task is not None and not self._watch_task.done():
            return
        self._stop_event = asyncio.Event()
        self._watch_task = asyncio.get_running_loop().create_task(
            watch_and_sync(self, self._stop_event, debounce_ms or self.settings.watch_debounce_ms)
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
        return {
            "files": len(self.store.files()),
            "chunks": self.store.chunk_count(),
            "vectors": len(self.vectors) if self.vectors is not None else 0,
        }

    def close(self) -> None:
        """Release files and databases (call `stop()` first if watching)."""
        with self._write_lock, self._parts_lock:
            self._close_parts()
