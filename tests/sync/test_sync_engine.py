"""The sync engine in one process (real git, a local bare remote): what each sync spends its
time on — settings written only when they differ, a pull's files written at once."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest

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


def test_a_note_edited_here_during_a_pull_never_turns_the_others_changes_into_conflicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The soak's conflict: a pull wrote a card, then found another note edited here meanwhile
    and gave up (HEAD not moved); the next sync committed the card as this machine's change, and
    the desktop's next edit of the same line became a conflict. Now the edit is merged in."""
    from remecli.sync import apply

    remote = _remote(tmp_path)
    laptop, desktop = _home(tmp_path, "laptop", remote), _home(tmp_path, "desktop", remote)
    card = "memory/2026-01-05/fact.md"
    roots = {"l": laptop[1].root, "d": desktop[1].root}
    write = {
        key: lambda rel, text, root=root: _put(root / rel, text) for key, root in roots.items()
    }
    other = "memory/2026-01-05/zeta.md"  # written after `card`
    write["l"](other, "---\nname: Zeta\n---\n- one\n- two\n- three\n")
    write["l"](card, "---\nname: Fact\n---\n- fact 1\n")
    for home in (laptop, desktop):
        assert sync_once(*home).state.outcome == "ok"
    write["d"](card, "---\nname: Fact\n---\n- fact 1 edited\n")
    write["d"](other, "---\nname: Zeta\n---\n- one, from the desktop\n- two\n- three\n")
    assert sync_once(*desktop).state.outcome == "ok"
    original, calls = apply.changes, []

    def meanwhile(git, old, new):  # after the merge is made, before its files are written
        found = original(git, old, new)
        if not calls:
            calls.append(new)
            write["l"](other, "---\nname: Zeta\n---\n- one\n- two\n- three, edited here\n")
            write["d"](card, "---\nname: Fact\n---\n- fact 1 edited twice\n")
            assert sync_once(*desktop).state.outcome == "ok"
        return found

    monkeypatch.setattr(apply, "changes", meanwhile)
    report = sync_once(*laptop)
    monkeypatch.undo()
    assert report.state.outcome == "ok", report.state.message
    for home in (desktop, laptop, desktop):  # the edit here goes out, the desktop's comes in
        state = sync_once(*home).state
        assert state.outcome == "ok", state.message
    for home in (laptop, desktop):
        root = home[1].root
        assert (root / card).read_text(encoding="utf-8").endswith("- fact 1 edited twice\n")
        zeta = (root / other).read_text(encoding="utf-8")
        assert zeta.endswith("- one, from the desktop\n- two\n- three, edited here\n")


def _put(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
