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
