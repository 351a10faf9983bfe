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

from remecli.search.cache import EmbeddingCache
from remecli.search.keyword import KeywordIndex
from remecli.search.store import ChunkStore
from remecli.search.vectors import VectorIndex

log = logging.getLogger(__name__)

STORE_FILE = "chunks.sqlite"
CACHE_FILE = "embedding_cache.sqlite"
KEYWORD_FOLDER = "keyword"
_OLD_FOLDERS = ("bm25",)  # the whoosh index of schema 1
# What opening or checking a damaged part raises (tantivy raises ValueError).
CORRUPTION_ERRORS: tuple[type[BaseException], ...] = (sqlite3.DatabaseError, ValueError, OSError)


@dataclass(slots=True)
class IndexParts:
    """The opened parts: chunk store, keyword index, embedding cache, vectors (None = none yet)."""

    store: ChunkStore
    keyword: KeywordIndex
    cache: EmbeddingCache
    vectors: VectorIndex | None = None

    @classmethod
    def open(cls, folder: Path, meta: dict[str, str], embedder_key: str) -> IndexParts:
        """Open the parts; a store written with other `meta` (schema, chunking) starts empty.

        Raises one of `CORRUPTION_ERRORS` when a part cannot be read.
        """
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(f"{folder} is a file, not the index folder")
        folder.mkdir(parents=True, exist_ok=True)
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
            if keyword.doc_count() != store.chunk_count():
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
    """Open the parts; if damaged, delete and recreate them. Returns (parts, what happened)."""
    try:
        return IndexParts.open(folder, meta, embedder_key), ""
    except CORRUPTION_ERRORS as exc:
        note = f"search index at {folder} was unreadable ({exc}); rebuilding it"
        log.warning(note)
    remove_derived(folder)
    try:
        return IndexParts.open(folder, meta, embedder_key), note
    except CORRUPTION_ERRORS as exc:  # the embedding cache is damaged too
        log.warning("embedding cache at %s unreadable too (%s); starting empty", folder, exc)
    remove_derived(folder, keep_cache=False)
    return IndexParts.open(folder, meta, embedder_key), note
