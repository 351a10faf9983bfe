"""A working dir on a read-only file system (issue 25.12): a search needs no write, so it
answers from a temporary copy of the index; reindex says what to do. Real processes, a real
read-only bind mount in a private mount namespace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.faults.mounts import need_namespaces, read_only


def _remecli(working_dir: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "remecli",
        *args,
        f"working_dir={working_dir}",
        "search.embedding.backend=none",
    ]


def _memory(tmp_path: Path) -> Path:
    working_dir = tmp_path / ".reme"
    (working_dir / "memory").mkdir(parents=True)
    (working_dir / "MEMORY.md").write_text("- the blue heron nests by the pond\n")
    (working_dir / "memory" / "2026-01-05.md").write_text(
        "# 2026-01-05\n\n- herons and [[MEMORY]]\n"
    )
    done = subprocess.run(
        _remecli(working_dir, "reindex"), capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    # written after the index: the temporary copy must catch up with the files
    (working_dir / "memory" / "2026-01-06.md").write_text("- a kingfisher by the heron\n")
    return working_dir


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }


def test_search_on_a_read_only_dir_answers_and_says_so(tmp_path: Path) -> None:
    need_namespaces()
    working_dir = _memory(tmp_path)
    before = _tree(working_dir)
    subprocess.run(["chmod", "-R", "a-w", str(working_dir)], check=True)  # as users do it
    try:
        _search_read_only(working_dir, tmp_path, before)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(working_dir)], check=True)


def _search_read_only(
    working_dir: Path, tmp_path: Path, before: dict[str, tuple[int, int]]
) -> None:
    done = subprocess.run(
        read_only(working_dir, _remecli(working_dir, "search", "kingfisher", "--json")),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ},
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "cannot be written" in done.stderr and "temporary copy" in done.stderr
    hits = json.loads(done.stdout)
    assert [hit["path"] for hit in hits] == ["memory/2026-01-06.md"]
    plain = subprocess.run(
        read_only(working_dir, _remecli(working_dir, "search", "heron")),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert plain.returncode == 0 and "MEMORY.md:1-1" in plain.stdout, plain.stderr
    assert _tree(working_dir) == before  # nothing written, not even a log line


def test_reindex_on_a_read_only_dir_says_what_to_do(tmp_path: Path) -> None:
    need_namespaces()
    working_dir = _memory(tmp_path)
    done = subprocess.run(
        read_only(working_dir, _remecli(working_dir, "reindex")),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Read-only file system" in lines[0], done.stderr
    assert "Make the folder writable" in lines[0] and "remecli search" in lines[0]
