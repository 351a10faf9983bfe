"""Hybrid memory search (BM25 + vectors) over notes (MEMORY.md, memory/, digest/) and transcripts.

from remecli.search import MemoryIndex
index = MemoryIndex.open(working_dir, settings.search)
index.sync_blocking()                      # or: await index.sync()
results = await index.search("deploy steps", max_results=5)
results = await index.search("deploy", source="transcripts", since="2025-01-01", until=None)
"""

from remecli.search.chunker import MarkdownChunker
from remecli.search.embedders import (
    ApiEmbedder,
    Embedder,
    EmbeddingError,
    LocalE5Embedder,
    make_embedder,
)
from remecli.search.index import MemoryIndex
from remecli.search.types import Chunk, SearchResult, SyncReport

__all__ = [
    "ApiEmbedder",
    "Chunk",
    "Embedder",
    "EmbeddingError",
    "LocalE5Embedder",
    "MarkdownChunker",
    "MemoryIndex",
    "SearchResult",
    "SyncReport",
    "make_embedder",
]
