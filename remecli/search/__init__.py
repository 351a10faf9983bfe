"""Hybrid memory search (BM25 + vectors) over notes (MEMORY.md, memory/, digest/) and transcripts.

from remecli.search import MemoryIndex, SearchRequest
index = MemoryIndex.open(working_dir, settings.search)
index.sync_blocking()                      # or: await index.sync()
hits = await index.search(SearchRequest(query="deploy steps", max_results=5))
hits = await index.search(SearchRequest(query="deploy", source="transcripts", since="2025-01-01"))

The names load on first use: `remecli.search.request` (what the jobs and tools import at
start-up) pulls in neither numpy nor the index.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from remecli.search.chunker import MarkdownChunker
    from remecli.search.embedders import (
        ApiEmbedder,
        Embedder,
        EmbeddingError,
        LocalE5Embedder,
        make_embedder,
    )
    from remecli.search.hits import SearchHit
    from remecli.search.index import MemoryIndex
    from remecli.search.request import SearchRequest
    from remecli.search.types import Chunk, SyncReport

_HOME = {
    "ApiEmbedder": "embedders",
    "Chunk": "types",
    "Embedder": "embedders",
    "EmbeddingError": "embedders",
    "LocalE5Embedder": "embedders",
    "MarkdownChunker": "chunker",
    "MemoryIndex": "index",
    "SearchHit": "hits",
    "SearchRequest": "request",
    "SyncReport": "types",
    "make_embedder": "embedders",
}
__all__ = [
    "ApiEmbedder",
    "Chunk",
    "Embedder",
    "EmbeddingError",
    "LocalE5Embedder",
    "MarkdownChunker",
    "MemoryIndex",
    "SearchHit",
    "SearchRequest",
    "SyncReport",
    "make_embedder",
]


def __getattr__(name: str) -> object:
    """The exported name, imported from its module on first use."""
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"remecli.search.{_HOME[name]}"), name)
