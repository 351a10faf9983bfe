"""A one-shot `remecli search` and an explicit `remecli reindex` answer with vectors: the
on-demand embedding that keeps the chat app light must not leave the CLI keyword-only
(the default local model, through the entry point `main`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from remecli.__main__ import main


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("REME_EMBEDDING_API_KEY", "REME_EMBEDDING_BASE_URL", "REME_WORKING_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def _without_vectors(working_dir: Path) -> int:
    with sqlite3.connect(working_dir / "index" / "chunks.sqlite") as db:
        return int(db.execute("SELECT COUNT(*) FROM chunks WHERE vector IS NULL").fetchone()[0])


def test_the_first_search_of_a_fresh_index_is_hybrid(working_dir: Path, capsys) -> None:
    argv = ["search", "backup schedule", "--json", f"working_dir={working_dir}"]
    assert main(argv) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits and "vector" in hits[0]["signals"]
    assert _without_vectors(working_dir) == 0


def test_reindex_embeds_every_chunk(working_dir: Path, capsys) -> None:
    assert main(["reindex", f"working_dir={working_dir}"]) == 0
    out = capsys.readouterr().out
    assert "0 embedded" not in out
    assert _without_vectors(working_dir) == 0
