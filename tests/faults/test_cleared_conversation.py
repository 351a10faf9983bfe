"""Issue 25.9: after `/clear` the cleared text is gone from every store, the search index's
write-ahead log included; the working dir and everything in it is private on every entry point,
also when it existed before with looser modes (tightened, and said once).
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from remecli.knowledge.summary.summarizer import NOTHING_MARKER
from tests.cli_process import run_one_shot, run_remecli
from tests.e2e.test_plain_and_oneshot import Pty, base_args
from tests.fakes.faulty_openai import FaultyOpenAIServer

pytestmark = pytest.mark.timeout(400)  # real processes on a shared machine

MARKER = "zebrafinch7731"  # one word the cleared conversation holds, nothing else does


def _indexed(working_dir: Path, word: str) -> int:
    """How many chunk rows of the index hold `word` (read as another process would)."""
    path = working_dir / "index" / "chunks.sqlite"
    if not path.is_file():
        return 0
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            row = connection.execute(
                "SELECT COUNT(*) FROM chunks WHERE text LIKE ?", (f"%{word}%",)
            ).fetchone()
        finally:
            connection.close()
    except sqlite3.DatabaseError:
        return 0
    return int(row[0])


def _until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.3)


def _files_holding(root: Path, word: str) -> list[str]:
    needle = word.encode()
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and needle in p.read_bytes().lower()
    )


def test_cleared_text_leaves_no_copy_in_the_index_or_its_wal(
    fake_llm: FaultyOpenAIServer, tmp_path: Path
) -> None:
    fake_llm.add_tool_calls([("bash", {"command": f"echo {MARKER}; seq 1 40000"})])
    fake_llm.add_text(f"Noted {MARKER}.")
    fake_llm.set_fallback(NOTHING_MARKER)
    working_dir = tmp_path / ".reme"
    term = Pty(
        [
            *base_args(fake_llm, tmp_path),
            "ui=plain",
            "tools.approval=never",
            "search.embedding.backend=none",
            "search.watch_debounce_ms=100",
        ],
        tmp_path,
    )
    term.read_until("/help for commands", timeout=120)
    term.write(f"please remember the bird {MARKER} for the trip\r")
    term.read_until(f"Noted {MARKER}.", timeout=120)
    _until(lambda: _indexed(working_dir, MARKER) > 0, 90, "the transcript to be indexed")
    assert list((working_dir / "tool_result").glob("*.full.txt"))  # an output was kept
    term.write("/clear\r")
    term.read_until("Conversation cleared", timeout=60)
    _until(lambda: _indexed(working_dir, MARKER) == 0, 90, "the index to forget it")
    wal = working_dir / "index" / "chunks.sqlite-wal"
    _until(lambda: not wal.exists() or MARKER.encode() not in wal.read_bytes(), 30, "the WAL")
    held = [
        name
        for name in ("chunks.sqlite", "chunks.sqlite-wal", "chunks.sqlite-shm")
        if (working_dir / "index" / name).is_file()
        and MARKER.encode() in (working_dir / "index" / name).read_bytes()
    ]
    assert held == []  # while the app still runs: the pages were overwritten, the WAL emptied
    term.write("/exit\r")
    term.wait(120)
    assert _files_holding(working_dir, MARKER) == []


def _open_modes(root: Path) -> list[str]:
    """Entries under `root` (itself included) that group or other may read, write or enter."""
    entries = [root, *root.rglob("*")]
    return sorted(
        f"{oct(stat.S_IMODE(p.lstat().st_mode))} {p.relative_to(root.parent)}"
        for p in entries
        if not p.is_symlink() and stat.S_IMODE(p.lstat().st_mode) & 0o077
    )


def _loose_working_dir(root: Path) -> None:
    """A working dir made by an older version or by hand: readable by everyone."""
    (root / "sessions").mkdir(parents=True)
    (root / "memory").mkdir()
    (root / "MEMORY.md").write_text("# MEMORY\n\n- likes tea\n")
    (root / "sessions" / "old.jsonl").write_text("")
    (root / "memory" / "2026-01-01.md").write_text("# day\n")
    for path in (root, *root.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.mark.parametrize("entry", ["one-shot", "job", "reindex"])
def test_every_entry_point_leaves_the_working_dir_private(
    fake_llm: FaultyOpenAIServer, tmp_path: Path, entry: str
) -> None:
    working_dir = tmp_path / ".reme"
    _loose_working_dir(working_dir)
    fake_llm.set_fallback("ok")

    def run() -> str:
        if entry == "one-shot":
            proc = run_one_shot(fake_llm.base_url, working_dir, "hi", cwd=tmp_path, timeout=280)
        elif entry == "job":
            proc = run_remecli(
                "job",
                "memory_write",
                "--path",
                "memory/notes.md",
                "--content",
                "# Notes\n\n- one\n",
                f"working_dir={working_dir}",
                "search.embedding.backend=none",
                cwd=tmp_path,
                timeout=280,
            )
        else:
            proc = run_remecli(
                "reindex",
                f"working_dir={working_dir}",
                "search.embedding.backend=none",
                cwd=tmp_path,
                timeout=280,
            )
        assert proc.returncode == 0, proc.stderr
        return proc.stderr

    first = run()
    assert _open_modes(working_dir) == []
    log = (working_dir / "logs" / "remecli.log").read_text()
    assert log.count("was readable by other users; made it") == 1
    if entry == "one-shot":
        assert "was readable by other users; made it" in first  # said where the user sees it
    second = run()
    assert "readable by other users" not in second
    assert (working_dir / "logs" / "remecli.log").read_text().count("readable by other") == 1
    assert _open_modes(working_dir) == []
    assert os.access(working_dir / "MEMORY.md", os.R_OK)  # still the user's
