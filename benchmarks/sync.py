"""Sync over git (issue 42): two memory homes, a local bare remote, N notes.

Times, as a user runs them (`remecli sync` processes, wall clock): the first sync of the home
holding the notes (pushes them all), the first sync of the empty home (pulls them all and
keeps them), then with 10 notes changed on each side: the sync that pushes, the one that
merges, pulls and pushes, and the one that pulls (goal: each <= 2 s), and `remecli sync status`
(starting the command and reading the settings: the floor under every row). The command line
opens no index; the next process that opens it reads the pulled files, measured after the
command-line rows, then the same syncs in one process with the index open (as in `serve` and
the chat), each reindexing only the files it wrote. Prints the figures and the command.

    PYTHONPATH=. python benchmarks/sync.py [--notes 10000] [--changed 10] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CARD = (
    "---\nname: Note {n}\ndescription: note number {n} about topic {t}\ntags: [t{t}, bench]\n---\n"
)


def remecli_sync(home: Path, machine: str, *args: str) -> tuple[float, dict[str, object]]:
    """Wall seconds of one `remecli sync … --json` in `home`, and its answer."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    env["PYTHONPATH"] = str(ROOT)
    command = [sys.executable, "-m", "remecli", "sync", *args, "--json"]
    command += [f"working_dir={home}", f"sync.machine={machine}", "search.embedding.backend=none"]
    started, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=3600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != 0:
        raise SystemExit(f"sync failed in {home}: {done.stdout}{done.stderr}")
    answer = json.loads(done.stdout[done.stdout.index("{") :])
    answer["cpu"] = cpu
    return wall, answer


def write_notes(home: Path, count: int) -> None:
    """`count` cards over 100 days, and a MEMORY.md."""
    (home / "memory").mkdir(parents=True)
    (home / "MEMORY.md").write_text("# MEMORY\n\n- bench memory\n", encoding="utf-8")
    for n in range(count):
        day = home / "memory" / f"2026-{1 + n % 10:02d}-{1 + (n // 10) % 10:02d}"
        day.mkdir(exist_ok=True)
        body = f"Note {n} says something about topic {n % 97}.\n" * 5
        (day / f"note-{n}.md").write_text(CARD.format(n=n, t=n % 97) + body, encoding="utf-8")


def change(home: Path, numbers: range, who: str) -> None:
    for n in numbers:
        day = home / "memory" / f"2026-{1 + n % 10:02d}-{1 + (n // 10) % 10:02d}"
        with (day / f"note-{n}.md").open("a", encoding="utf-8") as out:
            out.write(f"Changed on the {who}.\n")


def row(label: str, wall: float, answer: dict[str, object]) -> str:
    return (
        f"{label:<44} {wall:7.2f} s  cpu {answer['cpu']:6.2f} s   in {answer['pulled']:>6}   out {answer['pushed']:>6}"
        f"   reindexed {answer['reindexed']:>6}"
    )


def open_index(home: Path) -> tuple[float, int, Any]:
    """Open the search index of `home` as `serve` and the chat do (it syncs with the files
    first): the seconds, the files it read, the index."""
    from remecli.config.settings import Settings
    from remecli.search import MemoryIndex

    search = Settings().search.with_changes({"embedding.backend": "none"})
    started = time.perf_counter()
    index = MemoryIndex.open(home, search, embed_on_demand=True, long_lived=True)
    report = index.sync_blocking(embed=False)
    return time.perf_counter() - started, report.files_changed, index


def in_process(laptop: Path, desktop: Path, changed: int) -> list[str]:
    """What a sync costs inside `remecli serve` or the chat (no interpreter start, no imports,
    the index open): first what opening the index costs after the command-line syncs pulled
    files (only those are read), then the two incremental syncs again, each with the reindex
    of the files it wrote."""
    from remecli.config.locations import Locations
    from remecli.notes.writer import MemoryWriter
    from remecli.sync.engine import sync_once
    from remecli.sync.reindex import reindex_written
    from remecli.sync.repo import SyncRepo

    lines, indexes = [], {}
    for home, machine in ((laptop, "laptop"), (desktop, "desktop")):
        seconds, read, indexes[machine] = open_index(home)
        lines.append(
            f"index opened after those syncs, {machine:<8} {seconds:5.2f} s   files read {read:>6}"
        )
    change(laptop, range(4 * changed, 5 * changed), "laptop again")
    change(desktop, range(5 * changed, 6 * changed), "desktop again")
    try:
        for home, machine in ((laptop, "laptop"), (desktop, "desktop"), (laptop, "laptop")):
            layout = Locations(home)
            started = time.perf_counter()
            done = sync_once(SyncRepo(layout.root, machine), layout, MemoryWriter(layout.root))
            engine = time.perf_counter() - started
            reindexed = reindex_written(indexes[machine], done.written)
            total = time.perf_counter() - started
            state = done.state
            lines.append(
                f"in-process sync, {machine:<8} engine {engine:5.2f} s, with reindex {total:5.2f} s"
                f"   in {state.pulled:>6}   out {state.pushed:>6}   reindexed {reindexed:>6}"
            )
    finally:
        for index in indexes.values():
            index.close()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--changed", type=int, default=10)
    parser.add_argument("--keep", action="store_true", help="keep the folders (printed)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="remecli-sync-bench-"))
    try:
        remote, laptop, desktop = folder / "remote.git", folder / "laptop", folder / "desktop"
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
        write_notes(laptop, args.notes)
        print(f"git: {subprocess.check_output(['git', '--version'], text=True).strip()}")
        print(
            f"{args.notes} notes, {args.changed} changed on each side; wall clock and CPU per sync"
        )
        lines = [
            row(
                "first sync, laptop (pushes every note)",
                *remecli_sync(laptop, "laptop", "init", str(remote)),
            )
        ]
        lines.append(
            row(
                "first sync, desktop (pulls all)",
                *remecli_sync(desktop, "desktop", "init", str(remote)),
            )
        )
        for home in (laptop, desktop):  # each machine has used its memory: an index exists
            seconds, read, index = open_index(home)
            index.close()
            lines.append(f"index built, {home.name:<8} {seconds:7.2f} s   files read {read:>6}")
        change(laptop, range(0, args.changed), "laptop")
        change(desktop, range(args.changed, 2 * args.changed), "desktop")
        lines.append(row("laptop: push its changes", *remecli_sync(laptop, "laptop")))
        lines.append(row("desktop: merge, pull, push", *remecli_sync(desktop, "desktop")))
        lines.append(row("laptop: pull the desktop's changes", *remecli_sync(laptop, "laptop")))
        lines.append(row("nothing changed (laptop)", *remecli_sync(laptop, "laptop")))
        wall, answer = remecli_sync(laptop, "laptop", "status")
        answer.update(pulled=0, pushed=0, reindexed=0)  # it repeats the last sync's counts
        lines.append(row("`remecli sync status` (the floor)", wall, answer))
        lines += in_process(laptop, desktop, args.changed)
        print("\n".join(lines))
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    finally:
        if args.keep:
            print(f"kept: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    command = ["python", "benchmarks/sync.py", *sys.argv[1:]]
    print("command: PYTHONPATH=. " + shlex.join(command))


if __name__ == "__main__":
    main()
