"""The derived files of an index folder, opened together, checked, and removed when damaged.

`<working_dir>/index/`: `chunks.sqlite` (chunk store), `keyword/` (tantivy), and
`embedding_cache.sqlite`; the faiss vector index lives in memory, rebuilt from stored vectors.
Everything here can be rebuilt from the memory files, so a damaged part is deleted, not repaired.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from remecli.config.disk_full import is_disk_full, no_space_left
from remecli.config.privacy import private_dirs
from remecli.search.cache import EmbeddingCache
from remecli.search.keyword import KeywordIndex
from remecli.search.sharing import SharedIndex
from remecli.search.store import ChunkStore
from remecli.search.vectors import VectorIndex

log = logging.getLogger(__name__)

STORE_FILE = "chunks.sqlite"
CACHE_FILE = "embedding_cache.sqlite"
KEYWORD_FOLDER = "keyword"
_OLD_FOLDERS = ("bm25",)  # the whoosh index of schema 1
# What opening or checking a damaged part raises (tantivy raises ValueError).
CORRUPTION_ERRORS: tuple[type[BaseException], ...] = (sqlite3.DatabaseError, ValueError, OSError)
OPEN_WAIT_SECONDS = 30.0  # how long opening waits for another process's sync to end


@dataclass(slots=True)
class IndexParts:
    """The opened parts: chunk store, keyword index, embedding cache, vectors (None = none yet)."""

    store: ChunkStore
    keyword: KeywordIndex
    cache: EmbeddingCache
    vectors: VectorIndex | None = None

    @classmethod
    def open(
        cls, folder: Path, meta: dict[str, str], embedder_key: str, *, consistent: bool = True
    ) -> IndexParts:
        """Open the parts; a store written with other `meta` (schema, chunking) starts empty.
        `consistent`: no other process is writing, so the store and the keyword index must
        hold the same chunks (a mismatch is damage).

        Raises one of `CORRUPTION_ERRORS` when a part cannot be read.
        """
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(f"{folder} is a file, not the index folder")
        private_dirs(folder)  # derived from private notes
        store = ChunkStore(folder / STORE_FILE)
        try:
            store.check()
            if any(store.get_meta(k) not in (None, v) for k, v in meta.items()):
                store.close()
                remove_derived(folder)
                store = ChunkStore(folder / STORE_FILE)
            for key, value in meta.items():
                store.set_meta(key, value)
            if store.get_meta("embedder") != embedder_key:
                store.clear_vectors()
                store.set_meta("embedder", embedder_key)
            keyword = KeywordIndex(folder / KEYWORD_FOLDER)
            if consistent and keyword.doc_count() != store.chunk_count():
                raise ValueError(
                    f"keyword index holds {keyword.doc_count()} chunks, store {store.chunk_count()}"
                )
            cache = EmbeddingCache(folder / CACHE_FILE)
        except BaseException:
            store.close()
            raise
        parts = cls(store, keyword, cache)
        ids, matrix = store.all_vectors()
        if matrix is not None:
            parts.vectors = VectorIndex(matrix.shape[1])
            parts.vectors.add(ids, matrix)
        return parts

    def refresh(self) -> None:
        """Catch up with what other processes committed: the keyword searcher, and the vectors
        added or removed in the store since (the vector index lives in this process)."""
        self.keyword.reload()
        stored = self.store.vector_ids()
        have = self.vectors.ids() if self.vectors is not None else set()
        if self.vectors is not None and (gone := sorted(have - stored)):
            self.vectors.remove(gone)
        ids, matrix = self.store.vectors_of(sorted(stored - have))
        if matrix is None:
            return
        if self.vectors is None or self.vectors.dimensions != matrix.shape[1]:
            ids, matrix = self.store.all_vectors()  # another embedder: start over
            assert matrix is not None
            self.vectors = VectorIndex(matrix.shape[1])
        self.vectors.add(ids, matrix)

    def check(self) -> None:
        """Raise one of `CORRUPTION_ERRORS` if the store or keyword index is damaged."""
        self.store.check()
        self.keyword.doc_count()

    def close(self) -> None:
        """Release files and databases."""
        self.keyword.close()
        self.store.close()
        self.cache.close()


def remove_derived(folder: Path, *, keep_cache: bool = True) -> None:
    """Delete the chunk store and keyword index (and the embedding cache unless kept)."""
    if folder.exists() and not folder.is_dir():
        folder.unlink()
        return
    names = [STORE_FILE] + ([] if keep_cache else [CACHE_FILE])
    for name in names:
        for suffix in ("", "-wal", "-shm"):
            (folder / f"{name}{suffix}").unlink(missing_ok=True)
    for name in (KEYWORD_FOLDER, *_OLD_FOLDERS):
        shutil.rmtree(folder / name, ignore_errors=True)


def open_or_rebuild(
    folder: Path, meta: dict[str, str], embedder_key: str
) -> tuple[IndexParts, str]:
    """Open the parts; if damaged, delete and recreate them. Returns (parts, what happened).

    Opening waits (a while) for another process's sync to end, so a half-written sync is not
    taken for damage; a rebuild is announced to the other processes (a new epoch)."""
    note = ""
    if (folder.exists() or folder.is_symlink()) and not folder.is_dir():
        folder.unlink()  # `index` replaced by a file: derived state, rebuilt from the notes
        note = f"the search index at {folder} was a file, not a folder; rebuilding it"
        log.warning(note)
    shared = SharedIndex(folder)
    with shared.writer(timeout=OPEN_WAIT_SECONDS) as alone:
        try:
            parts = IndexParts.open(folder, meta, embedder_key, consistent=alone)
            if note:
                shared.bump(rebuilt=True)
            return parts, note
        except CORRUPTION_ERRORS as exc:
            if is_disk_full(exc) or no_space_left(
                folder
            ):  # not damage: deleting it would lose the index for nothing
                raise
            note = f"search index at {folder} was unreadable ({exc}); rebuilding it"
            log.warning(note)
        parts = fresh_parts(folder, meta, embedder_key)
        shared.bump(rebuilt=True)
        return parts, note


def fresh_parts(folder: Path, meta: dict[str, str], embedder_key: str) -> IndexParts:
    """Delete the derived files and open empty parts (the embedding cache kept if it reads);
    the caller holds the writer lock and announces the rebuild."""
    remove_derived(folder)
    try:
        return IndexParts.open(folder, meta, embedder_key)
    except CORRUPTION_ERRORS as exc:  # the embedding cache is damaged too
        log.warning("embedding cache at %s unreadable too (%s); starting empty", folder, exc)
    remove_derived(folder, keep_cache=False)
    return IndexParts.open(folder, meta, embedder_key)
