"""A card's words are searchable before its vectors exist, whatever the embedding of earlier
cards is doing (issue 39.7): a sync commits the keyword side, then embeds without the write
lock. Before, the embedding ran under the process's write lock, so the next card's keyword
commit queued behind it: at the default settings (the local model) two serve processes found
a card only 11–19 s after it was written on a loaded machine.

The embedding of the first card is held still (ordering, not timing); a second index on the same
folder stands for another process (it follows the shared change marker)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from remecli.search import MemoryIndex, SearchRequest
from tests.search.fake_embedder import CharNgramEmbedder
from tests.search.helpers import settings

HELD_SECONDS = 30.0  # far longer than a keyword commit takes on a loaded machine


class HeldEmbedder(CharNgramEmbedder):
    """Once `hold()` is called, embedding documents waits until `release()`."""

    def __init__(self) -> None:
        super().__init__()
        self.entered, self._gate = threading.Event(), threading.Event()
        self._gate.set()

    def hold(self) -> None:
        self.entered.clear()
        self._gate.clear()

    def release(self) -> None:
        self._gate.set()

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.entered.set()
        self._gate.wait(120)
        return super().embed_documents(texts)


def found(index: MemoryIndex, word: str) -> set[str]:
    """The files of the hits that hold `word` (the vector side may add others)."""
    return {
        hit.path for hit in index.search_blocking(SearchRequest(query=word)) if word in hit.snippet
    }


def test_a_card_is_found_by_keyword_while_an_earlier_one_is_being_embedded(
    working_dir: Path,
) -> None:
    embedder = HeldEmbedder()
    writer = MemoryIndex.open(working_dir, settings(), embedder=embedder)
    other = MemoryIndex.open(working_dir, settings(), embedder=CharNgramEmbedder())
    first, second = "memory/2025-01-03.md", "memory/2025-01-04.md"
    try:
        writer.sync_blocking()
        other.sync_blocking()
        embedder.hold()
        (working_dir / first).write_text("# 2025-01-03\n\nThe gate code is zqfirstcode.\n")
        embedding = threading.Thread(target=writer.sync_blocking, kwargs={"paths": {first}})
        embedding.start()
        assert embedder.entered.wait(HELD_SECONDS), "the first card was never embedded"
        assert first in found(other, "zqfirstcode")  # committed before

        (working_dir / second).write_text("# 2025-01-04\n\nThe boat is called zqsecondboat.\n")
        committing = threading.Thread(target=writer.sync_blocking, kwargs={"paths": {second}})
        committing.start()
        committing.join(HELD_SECONDS)
        assert not committing.is_alive(), "the second card's commit waited for the embedding"
        assert second in found(other, "zqsecondboat")
        assert second in found(writer, "zqsecondboat")
        assert embedding.is_alive()  # the first card's embedding is still held

        embedder.release()
        embedding.join(HELD_SECONDS)
        assert not embedding.is_alive()
        assert writer.store.count_without_vectors() == 0  # the running pass took the second too
        other.search_blocking(SearchRequest(query="zqsecondboat"))
        assert len(other.vectors or []) == other.store.chunk_count()  # followed the vectors
    finally:
        embedder.release()
        writer.close()
        other.close()


class HeldQueryEmbedder(CharNgramEmbedder):
    """Embedding the query "held" waits until `release()`."""

    def __init__(self) -> None:
        super().__init__()
        self.entered, self.released = threading.Event(), threading.Event()

    def embed_query(self, text: str) -> np.ndarray:
        if text == "held":
            self.entered.set()
            self.released.wait(120)
        return super().embed_query(text)


def test_a_search_does_not_wait_for_another_searchs_query_embedding(working_dir: Path) -> None:
    """Before, a search embedded its query holding the parts lock: one slow query embedding
    (45 s measured at load 23) held up every other search of the process."""
    embedder = HeldQueryEmbedder()
    index = MemoryIndex.open(working_dir, settings(), embedder=embedder)
    try:
        index.sync_blocking()
        (working_dir / "memory/2025-01-03.md").write_text("# 2025-01-03\n\nzqthirdcard.\n")
        index.sync_blocking(paths={"memory/2025-01-03.md"})
        slow = threading.Thread(target=index.search_blocking, args=(SearchRequest(query="held"),))
        slow.start()
        assert embedder.entered.wait(HELD_SECONDS)
        hits: list[set[str]] = []
        other = threading.Thread(target=lambda: hits.append(found(index, "zqthirdcard")))
        other.start()
        other.join(HELD_SECONDS)
        assert not other.is_alive(), "a search waited for another one's query embedding"
        assert hits == [{"memory/2025-01-03.md"}]
        assert slow.is_alive()
    finally:
        embedder.released.set()
        index.close()


class LazyEmbedder(CharNgramEmbedder):
    """Says it is not loaded until it first embeds (as the local model)."""

    loaded = False

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.loaded = True
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self.loaded = True
        return super().embed_query(text)


def test_the_first_search_loads_the_model_even_when_another_process_embeds(
    working_dir: Path,
) -> None:
    """Before, a process whose chunks another process embedded loaded the model only when a
    search needed a query vector: that search (and the ones behind it) waited for the load."""
    embedder = LazyEmbedder()
    index = MemoryIndex.open(working_dir, settings(), embedder=embedder, embed_on_demand=True)
    try:
        index.sync_blocking()
        assert not embedder.loaded
        with index.shared.embedding() as held:  # another process is embedding
            assert held
            index.search_blocking(SearchRequest(query="deploy"))
            index.want_embedding(wait=True)
        assert embedder.loaded
    finally:
        index.close()
