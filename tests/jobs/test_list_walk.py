"""memory_list walks only as far as it lists: a listing cut at LIST_MAX_ENTRIES never visits the
folders after the cut (Studio's navigator walked 10,000 notes per section on every load), and
an entry that vanishes or dangles is left out instead of failing the listing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from remecli.ops import JobRunner, listing
from remecli.ops.file_jobs import LIST_MAX_ENTRIES


async def test_a_cut_listing_stops_walking_at_the_cut(
    runner: JobRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = runner.context.root
    many = root / "memory" / "many"
    many.mkdir()
    for number in range(LIST_MAX_ENTRIES + 5):
        (many / f"card-{number:04d}.md").write_text("x\n")
    (root / "memory" / "zz" / "deeper").mkdir(parents=True)
    (root / "memory" / "zz" / "deeper" / "late.md").write_text("x\n")
    visited: list[str] = []
    real_scandir = os.scandir

    def recorded_scandir(path: str | Path) -> Iterator[os.DirEntry[str]]:
        visited.append(Path(path).relative_to(root).as_posix())
        return real_scandir(path)

    monkeypatch.setattr(listing.os, "scandir", recorded_scandir)
    listed = await runner.run("memory_list", {"folder": "memory", "recursive": True})
    assert listed["truncated"] and len(listed["entries"]) == LIST_MAX_ENTRIES
    assert visited == ["memory", "memory/many"]  # memory/zz and below: never walked
    paths = [entry["path"] for entry in listed["entries"]]
    assert paths == sorted(paths) and "memory/zz/" in paths and "memory/many/card-0000.md" in paths


async def test_a_dangling_symlink_is_left_out_of_a_listing(runner: JobRunner) -> None:
    root = runner.context.root
    (root / "memory" / "dangling.md").symlink_to(root / "memory" / "gone.md")
    listing = await runner.run("memory_list", {"folder": "memory"})
    paths = {entry["path"] for entry in listing["entries"]}
    assert "memory/2025-01-31.md" in paths and "memory/dangling.md" not in paths
