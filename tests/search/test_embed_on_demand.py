"""`embed_on_demand` (the chat app's index): a sync never loads a local model that is not loaded
yet (an idle app keeps its memory), the first search loads it and embeds what was left without
vectors in the background; an eager index (the CLI) embeds at sync as before."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import numpy as np

from remecli.config.settings import Settings
from remecli.conversation.file_memory import FileMemory
from remecli.search import MemoryIndex, SearchRequest
from remecli.search.embedders import LocalE5Embedder, is_loaded
from tests.search.fake_embedder import CharNgramEmbedder
from tests.search.helpers import settings


class SlowToLoadEmbedder(CharNgramEmbedder):
    """Deterministic vectors, with a local model's "not loaded until first used" state."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded = False

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.loaded = True
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self.loaded = True
        return super().embed_query(text)


async def _until(check, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_the_first_search_loads_the_model_and_embeds_in_the_background(
    working_dir: Path,
) -> None:
    embedder = SlowToLoadEmbedder()
    index = MemoryIndex.open(working_dir, settings(), embedder=embedder, embed_on_demand=True)
    try:
        report = await index.sync()
        assert report.files_changed == 2 and report.chunks_embedded == 0
        assert not embedder.loaded and embedder.documents_embedded == 0
        assert index.vectors is None
        hits = await index.search(
            SearchRequest(query="sourdough starter")
        )  # keyword side answers at once
        assert hits and hits[0].path == "memory/2025-01-02.md"
        chunks = index.store.chunk_count()
        await _until(lambda: index.vectors is not None and len(index.vectors) == chunks)
        assert embedder.loaded and embedder.documents_embedded == chunks
        (working_dir / "memory" / "2025-01-03.md").write_text(
            "# 2025-01-03\n\nThe boiler code is 4471.\n", encoding="utf-8"
        )
        report = await index.sync()  # loaded now: a sync embeds as usual
        assert report.chunks_embedded == 1
        hits = await index.search(SearchRequest(query="boiler code"))
        assert "vector" in hits[0].signals
    finally:
        index.close()


async def test_an_eager_index_embeds_at_sync(working_dir: Path) -> None:
    embedder = SlowToLoadEmbedder()
    index = MemoryIndex.open(working_dir, settings(), embedder=embedder)
    try:
        report = await index.sync()
        assert report.chunks_embedded == index.store.chunk_count() > 0
    finally:
        index.close()


async def test_the_app_starts_without_loading_the_local_model(tmp_path: Path) -> None:
    app_settings = Settings(working_dir=str(tmp_path / ".reme")).with_changes(
        {"llm.api_key": "sk-test", "memory.summarize": False, "search.embedding.api_key": ""}
    )
    assert app_settings.search.embedding.backend == "auto"  # the default: the local model
    memory = FileMemory(tmp_path / ".reme", settings=app_settings)
    await memory.start(wait_for_index=True)
    try:
        assert memory.index is not None
        assert isinstance(memory.index.embedder, LocalE5Embedder)
        assert memory.index.store.chunk_count() > 0  # MEMORY.md's template is indexed
        assert not is_loaded(memory.index.embedder)  # … but waits for a search for a vector
        assert memory.index.vectors is None
    finally:
        await memory.close()
