"""Issue 25.17: history that is itself damaged never blocks the file, and says what is wrong.

Real `remecli` processes on a working dir whose `.history/` was damaged by hand: a missing
snapshot, a corrupt snapshot, a `versions.jsonl` with garbage and bytes that are not UTF-8.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from remecli.notes.writer import MemoryWriter
from tests.cli_process import run_remecli


def _three_versions(root: Path) -> Path:
    writer = MemoryWriter(root)
    for n in (1, 2, 3):
        text = "# MEMORY\n\n" + "".join(f"- fact {k}\n" for k in range(n))
        writer.write("MEMORY.md", text, source=f"write {n}", allow_shrink=True)
    return root / ".history" / "MEMORY.md"


def _remecli(root: Path, *args: str):
    return run_remecli(
        *args, f"working_dir={root}", "search.embedding.backend=none", cwd=root.parent, timeout=280
    )


@pytest.mark.timeout(600)  # five real processes on a shared machine
def test_missing_or_corrupt_snapshots_and_a_garbled_log(tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    history = _three_versions(root)
    (history / "000001.gz").unlink()
    (history / "000002.gz").write_bytes(b"\x1f\x8b\x08\x00 this is not gzip at all")
    for version, words in ((1, "snapshot is missing"), (2, "snapshot is damaged")):
        restored = _remecli(root, "memory", "restore", "MEMORY.md", str(version))
        assert restored.returncode != 0
        assert "Traceback" not in restored.stderr, restored.stderr
        assert f"Version {version} of MEMORY.md cannot be restored: its {words}" in restored.stderr
        assert "Try another version" in restored.stderr
    log = history / "versions.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(lines[0] + b"\xff\xfe\x00garbage\n{not json}\n[1, 2]\n" + b"".join(lines[1:]))
    listed = _remecli(root, "memory", "history", "MEMORY.md")
    assert listed.returncode == 0, listed.stderr
    assert "write 3" in listed.stdout and "Traceback" not in listed.stderr
    edited = _remecli(
        root,
        "job",
        "memory_edit",
        "--path",
        "MEMORY.md",
        "--old",
        "- fact 2",
        "--new",
        "- fact two",
    )
    assert edited.returncode == 0, edited.stderr
    assert "- fact two" in (root / "MEMORY.md").read_text()
    back = _remecli(root, "memory", "restore", "MEMORY.md", "3")
    assert back.returncode == 0, back.stderr
    assert "- fact 2\n" in (root / "MEMORY.md").read_text()
    assert not (history / "000001.gz").exists()  # no new version took a lost number's place
    numbers = sorted(p.name for p in history.glob("*.gz"))
    assert numbers[-1] > "000003.gz" and len(set(numbers)) == len(numbers)
