"""A closed index is closed, not damaged. A one-shot process (`remecli job`) wrote a card and
closed its index before the sync its write had started ran; that sync met "Cannot operate on a
closed database", took it for damage, and the exiting process deleted and rebuilt the index every
other process shares (tests/search/test_coherence.py: the serves then did not find the card).

Now a sync, check, rebuild or search after `close()` does nothing, and `close()` first reads the
files this process wrote, so the others find them without waiting for their watchers."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from remecli.search import MemoryIndex, SearchRequest
from remecli.search.types import SyncReport
from tests.search.helpers import settings


def _working_dir(tmp_path: Path) -> Path:
    root = tmp_path / ".reme"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# MEMORY\n\n- The team ships on Fridays.\n")
    return root


def test_work_after_close_neither_fails_nor_rebuilds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = _working_dir(tmp_path)
    index = MemoryIndex.open(root, settings())
    index.sync_blocking()
    marker = index.shared.read()
    index.close()
    card = root / "memory" / "late.md"
    card.write_text("# Late\n\nThe codeword is quince.\n")
    index.note_written("memory/late.md")  # a write whose own sync runs after close

    with caplog.at_level(logging.WARNING):
        assert index.sync_blocking(paths=()) == SyncReport()
        assert index.sync_blocking() == SyncReport()
        assert index.search_blocking(SearchRequest(query="Fridays")) == []
        assert index.check_and_recover_blocking() is False
        assert index.reindex_blocking() == SyncReport()
        index.close()  # twice: no error

    assert "rebuild" not in caplog.text and "failed" not in caplog.text, caplog.text
    assert index.shared.read() == marker  # no process was told the index was rebuilt
    reopened = MemoryIndex.open(root, settings())
    try:
        assert "MEMORY.md" in reopened.store.files()  # what was indexed is still there
        assert not reopened.recovered
    finally:
        reopened.close()


def test_close_reads_the_files_this_process_wrote(tmp_path: Path) -> None:
    root = _working_dir(tmp_path)
    index = MemoryIndex.open(root, settings())
    index.sync_blocking()
    (root / "memory" / "card.md").write_text("# Card\n\nThe codeword is rutabaga.\n")
    index.note_written("memory/card.md")  # written; its own sync has not run yet
    before = index.shared.read()
    index.close()

    assert index.shared.read() != before  # the others are told at once
    other = MemoryIndex.open(root, settings())
    try:
        hits = other.search_blocking(SearchRequest(query="rutabaga"))
        assert [hit.path for hit in hits] == ["memory/card.md"]
    finally:
        other.close()


def test_close_leaves_a_big_written_file_to_the_next_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39.3: `/exit` after this process wrote a 51 MB MEMORY.md re-read it all (72 s);
    close() now reads the written files only up to a budget, the rest stays announced."""
    from remecli.search import index as index_module

    monkeypatch.setattr(index_module, "CLOSE_READ_BYTES", 2_000, raising=False)
    root = _working_dir(tmp_path)
    index = MemoryIndex.open(root, settings())
    index.sync_blocking()
    facts = "".join(f"- fact {n}: the kumquat ledger line {n}\n" for n in range(200))
    (root / "MEMORY.md").write_text(f"# MEMORY\n\n{facts}")  # ~8 KB: past the budget
    (root / "memory" / "card.md").write_text("# Card\n\nThe codeword is rutabaga.\n")
    index.note_written("MEMORY.md")
    index.note_written("memory/card.md")
    index.close()

    other = MemoryIndex.open(root, settings())
    try:
        assert [hit.path for hit in other.search_blocking(SearchRequest(query="rutabaga"))] == [
            "memory/card.md"
        ]
        assert other.search_blocking(SearchRequest(query="kumquat")) == []  # not read at exit
        other.sync_blocking(paths=())  # the next sync of any process reads what was announced
        assert "MEMORY.md" in {
            hit.path for hit in other.search_blocking(SearchRequest(query="kumquat"))
        }
    finally:
        other.close()


def test_a_closing_index_stops_before_storing_a_big_file_it_has_chunked(tmp_path: Path) -> None:
    """Issue 39.3: after chunking a 51 MB MEMORY.md, its keyword analysis (a minute) could not
    be stopped, and close() waited for it; now it runs before anything is stored and stops."""
    root = _working_dir(tmp_path)
    facts = "".join(f"- fact {n}: the kumquat ledger line {n}\n\n" for n in range(1_500))
    (root / "MEMORY.md").write_text(f"# MEMORY\n\n{facts}")
    index = MemoryIndex.open(root, settings(chunk_tokens=16, chunk_overlap=0))
    chunk = index.chunker.chunk

    def chunk_then_close(path: str, text: str):
        chunks = chunk(path, text)
        assert len(chunks) > 1_024
        index.request_stop()  # close() is called while the chunks are being stored
        return chunks

    index.chunker.chunk = chunk_then_close  # type: ignore[method-assign]
    index.sync_blocking()
    assert (
        index.store.chunk_count() == 0
        and index.search_blocking(SearchRequest(query="kumquat")) == []
    )
    index.close()
    other = MemoryIndex.open(root, settings(chunk_tokens=16, chunk_overlap=0))
    try:  # nothing half-stored: the next sync reads the file whole
        other.sync_blocking()
        assert len(other.search_blocking(SearchRequest(query="kumquat", max_results=3))) == 3
    finally:
        other.close()
