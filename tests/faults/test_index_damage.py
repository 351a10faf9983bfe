"""Damaged derived state (issue 25.3): the index folder replaced by a file, a dangling link,
missing, garbage in the chunk store, the keyword index or the link graph. Each is detected,
reported in one line, rebuilt from the Markdown, and nothing the user runs fails — checked with
real `remecli` processes (a job, reindex, a one-shot answer)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_process import fake_llm_settings, run_remecli
from tests.fakes.faulty_openai import FaultyOpenAIServer

CARD = "We deploy with make ship on Fridays."


def as_file(index: Path) -> None:
    shutil.rmtree(index)
    index.write_text("not an index\n")


def dangling_link(index: Path) -> None:
    shutil.rmtree(index)
    index.symlink_to(index.parent / "nowhere")


def missing(index: Path) -> None:
    shutil.rmtree(index)


def garbage_store(index: Path) -> None:
    for name in ("chunks.sqlite", "chunks.sqlite-wal", "chunks.sqlite-shm"):
        (index / name).unlink(missing_ok=True)
    (index / "chunks.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)


def garbage_keyword(index: Path) -> None:
    for file in (index / "keyword").iterdir():
        if file.is_file() and file.name != ".tantivy-writer.lock":
            file.write_bytes(b"\x00garbage" * 100)


def garbage_links(index: Path) -> None:
    (index / "links.sqlite3").write_bytes(b"\x00" * 5000)


DAMAGE: dict[str, Callable[[Path], None]] = {
    "index is a file": as_file,
    "index is a dangling link": dangling_link,
    "index is missing": missing,
    "chunk store is garbage": garbage_store,
    "keyword index is garbage": garbage_keyword,
    "link graph is garbage": garbage_links,
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working dir with one card, indexed by a first job (made once: each test copies it)."""
    root = tmp_path_factory.mktemp("indexed") / ".reme"
    server = FaultyOpenAIServer(plain_only=True).start()
    try:
        with pytest.MonkeyPatch.context() as env:  # the autouse private memory home is per test
            env.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
            done = run_remecli(
                "job", "memory_write_card", "--name", "deploy notes", "--description",
                "how we deploy", "--content", CARD, *fake_llm_settings(root, server.base_url),
                cwd=root.parent,
            )  # fmt: skip
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    assert (root / "index" / "links.sqlite3").exists()
    return root


@pytest.fixture
def memory(indexed: Path, tmp_path: Path, fake_llm) -> tuple[Path, list[str]]:
    """This test's copy of the indexed working dir (modes and times kept), and its settings."""
    root = tmp_path / ".reme"
    shutil.copytree(indexed, root, symlinks=True)
    return root, fake_llm_settings(root, fake_llm.base_url)


def assert_rebuilt(root: Path) -> None:
    index = root / "index"
    assert index.is_dir() and not index.is_symlink()
    assert index.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_a_job_finds_the_card_after_damage(
    kind: str, memory: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root, settings = memory
    DAMAGE[kind](root / "index")
    done = run_remecli("job", "memory_search", "--query", "deploy ship", *settings, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "deploy-notes.md" in done.stdout, done.stdout + done.stderr
    assert_rebuilt(root)
    if kind == "link graph is garbage":
        linked = run_remecli(
            "job", "memory_links", "--path", "deploy notes", *settings, cwd=tmp_path
        )  # fmt: skip
        assert linked.returncode == 0, linked.stderr
        assert '"in"' in linked.stdout and ".md" in linked.stdout.split('"in"', 1)[1]
    log = (root / "logs" / "remecli.log").read_text()
    if kind != "index is missing":  # a missing folder is simply made again
        assert "rebuilding" in log, log


@pytest.mark.parametrize("kind", ["index is a file", "chunk store is garbage"])
def test_reindex_repairs_and_says_so_once(
    kind: str, memory: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root, settings = memory
    DAMAGE[kind](root / "index")
    done = run_remecli("reindex", *settings, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "3 chunks added" in done.stdout, done.stdout
    assert done.stderr.count("rebuilding it") == 1, done.stderr
    assert_rebuilt(root)
    found = run_remecli("search", "deploy ship", *settings, cwd=tmp_path)
    assert found.returncode == 0 and "deploy-notes.md" in found.stdout, found.stderr
    assert "rebuilding" not in found.stderr  # reported once: the index is sound again


def test_a_one_shot_answer_survives_an_index_that_is_a_file(
    memory: tuple[Path, list[str]], tmp_path: Path, memory_model
) -> None:
    root, settings = memory
    as_file(root / "index")
    done = run_remecli("-p", "hello there", *settings, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), done.stderr
    assert_rebuilt(root)
