"""A search reads this process's own writes first: the write's sync runs in the background and
lost the race to the next search (a note written through `remecli mcp` was not found by the
search that followed it). Reading them must never cost the search itself: when that read fails,
the search answers from what the index holds, and the write is read by a later sync."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from remecli.search import MemoryIndex, SearchRequest
from tests.search.helpers import settings


def _index(tmp_path: Path) -> tuple[Path, MemoryIndex]:
    root = tmp_path / ".reme"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# MEMORY\n\n- The team ships on Fridays.\n")
    index = MemoryIndex.open(root, settings())
    index.sync_blocking()
    return root, index


def _paths(index: MemoryIndex, query: str) -> list[str]:
    return [hit.path for hit in index.search_blocking(SearchRequest(query=query))]


def test_a_write_is_found_by_the_next_search_without_its_own_sync(tmp_path: Path) -> None:
    root, index = _index(tmp_path)
    try:
        (root / "memory" / "card.md").write_text("# Card\n\nThe codeword is quince.\n")
        index.note_written("memory/card.md")  # its background sync has not run
        assert _paths(index, "quince") == ["memory/card.md"]
    finally:
        index.close()


def test_a_failing_read_of_own_writes_leaves_the_search_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root, index = _index(tmp_path)
    try:
        (root / "memory" / "card.md").write_text("# Card\n\nThe codeword is quince.\n")
        index.note_written("memory/card.md")

        def refuse(*args: object, **kwargs: object) -> None:
            raise PermissionError("[Errno 13] Permission denied: 'index/keyword'")

        monkeypatch.setattr(index, "sync_blocking", refuse)
        with caplog.at_level(logging.WARNING):
            assert _paths(index, "Fridays") == ["MEMORY.md"]  # what the index holds
        assert "Permission denied" in caplog.text
        monkeypatch.undo()
        assert _paths(index, "quince") == ["memory/card.md"]  # read by the next search
    finally:
        index.close()
