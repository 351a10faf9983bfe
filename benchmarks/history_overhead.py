"""History overhead per memory write: `.history/` gzip snapshots vs a local git repository.

Run:  nice -n 5 python benchmarks/history_overhead.py [--writes 200] [--sizes 2000,200000]

For each file size (a small topic card, a large day page) the same sequence of edits (one line
appended per write) is written `--writes` times by:
  * plain        atomic_write_text only (the floor: temp file, fsync, rename),
  * writer/none  MemoryWriter with history off (adds the lock, the shrink check, redaction),
  * writer       MemoryWriter as shipped (plus the version kept in .history/, gzip + fsync),
  * git          atomic write + `git add` + `git commit` in a repository inside the working dir
                 (the alternative the issue suggested; git's own fsync settings, default).
Prints the median and p95 per write, the overhead over `plain`, and the history bytes on disk
per write. Methods take turns write by write, so a busy machine slows them alike. Runs in a
temp folder on the working disk (not tmpfs).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from remecli.notes.atomic_write import atomic_write_text  # noqa: E402
from remecli.notes.writer import MemoryWriter  # noqa: E402


def _contents(size: int, writes: int) -> list[str]:
    line = "- a remembered fact about deploys, editors and the team's habits\n"
    base = line * max(1, size // len(line))
    return [base + "".join(f"- added fact {i}\n" for i in range(n + 1)) for n in range(writes)]


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def measure(
    setups: list[tuple[str, Callable[[Path], Callable[[str], None]]]],
    texts: list[str],
    base: Path,
) -> dict[str, tuple[list[float], int]]:
    """Write `texts` with every method, interleaved write by write (so load on a shared
    machine hits all methods alike); per method: timings and history bytes on disk."""
    writers = {}
    for name, setup in setups:
        root = base / name.replace("/", "-")
        (root / "memory").mkdir(parents=True)
        writers[name] = (root, setup(root))
    timings: dict[str, list[float]] = {name: [] for name in writers}
    for text in texts:
        for name, (_, write) in writers.items():
            started = time.perf_counter()
            write(text)
            timings[name].append(time.perf_counter() - started)
    results = {}
    for name, (root, _) in writers.items():
        history = root / ".history" if (root / ".history").exists() else root / ".git"
        results[name] = (timings[name], _folder_bytes(history) if history.exists() else 0)
    return results


def plain(root: Path) -> Callable[[str], None]:
    return lambda text: atomic_write_text(root / "memory/day.md", text)


def writer_without_history(root: Path) -> Callable[[str], None]:
    writer = MemoryWriter(root, history=False)
    return lambda text: (writer.write("memory/day.md", text, source="bench"), None)[1]


def writer(root: Path) -> Callable[[str], None]:
    writer = MemoryWriter(root, keep=10_000)  # keep every version: measure the growth
    return lambda text: (writer.write("memory/day.md", text, source="bench"), None)[1]


def git(root: Path) -> Callable[[str], None]:
    _git(root, "init", "-q")
    _git(root, "config", "user.email", "bench@example.com")
    _git(root, "config", "user.name", "bench")

    def write(text: str) -> None:
        atomic_write_text(root / "memory/day.md", text)
        _git(root, "add", "memory/day.md")
        _git(root, "commit", "-q", "-m", "bench")

    return write


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--sizes", default="2000,200000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    base = Path(tempfile.mkdtemp(prefix="remecli-history-bench-", dir=ROOT.parent))
    methods = [("plain", plain), ("writer/none", writer_without_history), ("writer", writer)]
    if shutil.which("git"):
        methods.append(("git", git))
    try:
        for size in sizes:
            texts = _contents(size, args.writes)
            print(f"file ≈ {size:,} bytes, {args.writes} writes (one line appended each)")
            print(
                f"  {'method':<12} {'median ms':>10} {'p95 ms':>8} {'overhead':>9} "
                f"{'history B/write':>16}"
            )
            measured = measure(methods, texts, base / str(size))
            floor = statistics.median(measured["plain"][0])
            for name, (timings, used) in measured.items():
                timings.sort()
                median = statistics.median(timings)
                p95 = timings[min(len(timings) - 1, int(len(timings) * 0.95))]
                print(
                    f"  {name:<12} {median * 1e3:>10.2f} {p95 * 1e3:>8.2f} "
                    f"{median / floor:>8.2f}x {used / args.writes:>16,.0f}"
                )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(
        f"command: nice -n 5 python benchmarks/history_overhead.py --writes {args.writes} "
        f"--sizes {args.sizes}"
    )


if __name__ == "__main__":
    main()
