"""A damaged derived index is detected and rebuilt (keyword side first); search never crashes."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from remecli.__main__ import main
from remecli.search import MemoryIndex, SearchRequest
from tests.search.helpers import settings


def _garbage_store(root: Path) -> None:
    (root / "index" / "chunks.sqlite").write_bytes(b"not a database at all\x00" * 200)


def _garbage_keyword(root: Path) -> None:
    for path in (root / "index" / "keyword").iterdir():
        path.write_bytes(b"\xff\xfe garbage")


def _index_is_a_file(root: Path) -> None:
    shutil.rmtree(root / "index")
    (root / "index").write_text("oops", encoding="utf-8")


def _build(root: Path) -> None:
    index = MemoryIndex.open(root, settings())
    index.sync_blocking()
    index.close()


@pytest.mark.parametrize("damage", [_garbage_store, _garbage_keyword, _index_is_a_file])
def test_open_rebuilds_a_damaged_index(working_dir: Path, damage, caplog) -> None:
    _build(working_dir)
    damage(working_dir)
    caplog.set_level(logging.WARNING, logger="remecli.search")
    index = MemoryIndex.open(working_dir, settings())
    try:
        assert "rebuilding it" in index.recovered
        assert any("rebuilding it" in r.getMessage() for r in caplog.records)
        index.sync_blocking()
        assert [
            r.path for r in index.search_blocking(SearchRequest(query="kubernetes", max_results=1))
        ] == ["memory/2025-01-02.md"]
        assert (working_dir / "index").is_dir()
    finally:
        index.close()


def test_damage_while_open_is_recovered_by_check_and_by_search(working_dir: Path) -> None:
    index = MemoryIndex.open(working_dir, settings())
    try:
        index.sync_blocking()
        assert index.check_and_recover_blocking() is False
        index.parts.store._db.execute("DROP TABLE chunks")  # the store loses its table
        assert index.check_and_recover_blocking() is True
        assert [
            r.path for r in index.search_blocking(SearchRequest(query="sourdough", max_results=1))
        ] == ["memory/2025-01-02.md"]
        index.parts.store._db.execute("DROP TABLE chunks")
        assert [
            r.path for r in index.search_blocking(SearchRequest(query="sourdough", max_results=1))
        ] == ["memory/2025-01-02.md"]
    finally:
        index.close()


def test_cli_search_on_a_damaged_index_says_so_and_answers(working_dir: Path, capsys) -> None:
    _build(working_dir)
    _garbage_store(working_dir)
    args = ["kubernetes", f"working_dir={working_dir}", "search.embedding.backend=none"]
    assert main(["search", *args]) == 0
    captured = capsys.readouterr()
    assert "memory/2025-01-02.md" in captured.out
    assert captured.err.count("rebuilding it") == 1 and "Traceback" not in captured.err
