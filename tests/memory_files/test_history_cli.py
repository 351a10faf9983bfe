"""`remecli memory history` / `remecli memory restore` as a user runs them (a real process)."""

from __future__ import annotations

import json
from pathlib import Path

from remecli.notes.writer import MemoryWriter
from tests.cli_process import run_remecli


def test_history_lists_versions_and_restore_is_a_new_version(tmp_path: Path) -> None:
    root = tmp_path / "wd"
    root.mkdir()
    writer = MemoryWriter(root)
    writer.write("memory/2025-01-31.md", "# 2025-01-31\n- first\n", source="summarizer")
    writer.write("memory/2025-01-31.md", "# 2025-01-31\n- first\n- second\n", source="agent edit")
    wd = f"working_dir={root}"
    proc = run_remecli("memory", "history", "memory/2025-01-31.md", "--json", wd, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    versions = json.loads(proc.stdout)
    assert [(v["version"], v["source"]) for v in versions] == [(1, "summarizer"), (2, "agent edit")]
    assert set(versions[0]) >= {"version", "time", "bytes", "source"}
    proc = run_remecli("memory", "restore", "memory/2025-01-31.md", "1", wd, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "now version 3" in proc.stdout
    assert (root / "memory/2025-01-31.md").read_text() == "# 2025-01-31\n- first\n"
    proc = run_remecli("memory", "history", "wd/memory/2025-01-31.md", wd, cwd=tmp_path)
    lines = proc.stdout.splitlines()
    assert len(lines) == 3 and lines[2].rstrip().endswith("restore of version 1")


def test_history_errors_are_one_line(tmp_path: Path) -> None:
    root = tmp_path / "wd"
    root.mkdir()
    wd = f"working_dir={root}"
    proc = run_remecli("memory", "restore", "MEMORY.md", "7", wd, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.strip() == (
        "remecli: MEMORY.md has no version 7 (kept: none)"
    )
    proc = run_remecli("memory", "history", "sessions/x.jsonl", wd, cwd=tmp_path)
    assert proc.returncode == 1 and "is not a memory file" in proc.stderr
    proc = run_remecli("memory", "restore", "MEMORY.md", "one", wd, cwd=tmp_path)
    assert proc.returncode == 2 and "VERSION must be a number" in proc.stderr
    proc = run_remecli("memory", "history", "MEMORY.md", wd, cwd=tmp_path)
    assert proc.returncode == 0 and "no versions yet" in proc.stdout


def test_restore_of_version_zero_is_one_line_saying_where_versions_start(tmp_path: Path) -> None:
    root = tmp_path / "wd"
    root.mkdir()
    proc = run_remecli("memory", "restore", "MEMORY.md", "0", f"working_dir={root}", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == (
        "remecli memory restore: versions start at 1, got 0; `remecli memory history PATH` "
        "lists them (see remecli memory restore --help)"
    )


BAD_VALUES = [
    ("links", "MEMORY.md", "--depth", "99"),
    ("links", "MEMORY.md", "--rename", "x.txt"),
    ("links", "--rename", "../../a.md", "MEMORY.md"),
    ("search", "x", "--min-score", "5"),
    ("search", "x", "--max", "100000"),
    ("memory", "history", "../outside.md"),
    ("memory", "restore", "MEMORY.md", "-3"),
]


def test_every_checked_parameter_out_of_range_is_one_line(tmp_path: Path) -> None:
    """Values that a job's pydantic params refuse: one line naming the value, never a traceback."""
    root = tmp_path / "wd"
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n")
    for args in BAD_VALUES:
        proc = run_remecli(*args, f"working_dir={root}", cwd=tmp_path)
        assert proc.returncode in (1, 2), (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("remecli"), (args, proc.stderr)
        assert "Traceback" not in proc.stderr and "pydantic" not in proc.stderr, args
