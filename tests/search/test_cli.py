"""`remecli search` / `remecli reindex` through the entry point `main` (in this process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remecli.__main__ import main
from remecli.surfaces.cli.memory_commands import search


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("REME_EMBEDDING_API_KEY", "REME_EMBEDDING_BASE_URL", "REME_WORKING_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_search_json_with_key_value_settings(working_dir: Path, capsys) -> None:
    argv = [
        "backup schedule",
        "--json",
        "--max",
        "1",
        f"working_dir={working_dir}",
        "search.embedding.backend=none",
    ]
    assert main(["search", *argv]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 1
    assert hits[0]["path"] == "memory/2025-01-02.md"
    assert hits[0]["signals"] == ["bm25"]


def test_search_plain_output_and_no_match(working_dir: Path, capsys) -> None:
    base = [f"working_dir={working_dir}", "search.embedding.backend=none"]
    assert main(["search", "部署脚本", *base]) == 0
    assert "MEMORY.md:5-6" in capsys.readouterr().out
    assert main(["search", "zeppelin", *base]) == 0
    assert capsys.readouterr().out.strip() == "no matches"


def test_reindex_prints_a_summary(working_dir: Path, capsys) -> None:
    args = [f"working_dir={working_dir}", "search.embedding.backend=none"]
    assert main(["reindex", *args]) == 0
    assert "indexed 2 files" in capsys.readouterr().out
    assert (working_dir / "index" / "chunks.sqlite").is_file()


def test_config_errors_print_one_line_and_exit_2(working_dir: Path, capsys) -> None:
    assert main(["search", "x", f"working_dir={working_dir}", "search.nope=1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("remecli: unknown setting 'search.nope'") and "\n" not in err


def test_missing_working_dir_says_what_to_do(tmp_path: Path, capsys) -> None:
    assert main(["reindex", f"working_dir={tmp_path / 'absent'}"]) == 1
    assert "working_dir=PATH" in capsys.readouterr().err


def test_usage_errors() -> None:
    parsed = search.make_context("search", ["q", "--max=3", "a.b=1"]).params
    assert parsed == {
        "query": "q",
        "as_json": False,
        "max_results": 3,
        "min_score": None,
        "source": None,
        "since": None,
        "until": None,
        "project": None,
        "as_of": None,
        "setting_args": ["a.b=1"],
    }
    assert main(["search", "--json"]) == 2
    assert main(["search", "q", "--max", "zero"]) == 2
    assert main(["reindex", "stray"]) == 2
