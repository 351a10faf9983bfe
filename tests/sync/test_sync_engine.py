"""The sync engine in one process (real git, a local bare remote): what each sync spends its
time on — settings written only when they differ, a pull's files written at once."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from remecli.config.locations import Locations
from remecli.notes.writer import MemoryWriter
from remecli.sync.engine import sync_once
from remecli.sync.repo import SyncRepo


def _home(tmp_path: Path, name: str, remote: Path) -> tuple[SyncRepo, Locations, MemoryWriter]:
    layout = Locations(tmp_path / name).ensure()
    repo = SyncRepo(layout.root, name)
    repo.init(str(remote))
    return repo, layout, MemoryWriter(layout.root)


def _remote(tmp_path: Path) -> Path:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    return remote


def test_settings_are_written_only_when_they_differ(tmp_path: Path) -> None:
    """Every sync checks the repository's settings; one that is already right is not written
    again (git lists keys in lower case: `core.untrackedCache` was rewritten every sync)."""
    repo, _layout, _writer = _home(tmp_path, "laptop", _remote(tmp_path))
    config = repo.git_dir / "config"
    before = config.stat()
    repo.configure()
    after = config.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_pull_writes_its_files_at_once(tmp_path: Path) -> None:
    """The memory files a pull changes are written side by side, not one after the other
    (each write waits ~50 ms for late appends): both writes meet at a barrier only they pass."""
    remote = _remote(tmp_path)
    laptop = _home(tmp_path, "laptop", remote)
    cards = [f"memory/2026-01-05/card-{n}.md" for n in range(2)]
    for rel in cards:
        path = laptop[1].root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nname: {rel}\n---\nfirst\n", encoding="utf-8")
    assert sync_once(*laptop).state.outcome == "ok"
    desktop = _home(tmp_path, "desktop", remote)
    assert sync_once(*desktop).state.outcome == "ok"
    for rel in cards:
        with (laptop[1].root / rel).open("a", encoding="utf-8") as out:
            out.write("second\n")
    assert sync_once(*laptop).state.outcome == "ok"

    barrier, met = threading.Barrier(len(cards), timeout=15), []

    def meet(rel: str) -> None:
        if rel in cards:
            barrier.wait()  # breaks (and the write's hook logs it) unless both are in flight
            met.append(rel)

    desktop[2].on_written.append(meet)
    report = sync_once(*desktop)
    assert report.state.outcome == "ok", report.state.message
    assert sorted(met) == cards
    for rel in cards:
        assert (desktop[1].root / rel).read_text(encoding="utf-8").endswith("first\nsecond\n")
