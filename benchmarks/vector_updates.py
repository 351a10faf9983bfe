"""Cost of one `VectorIndex.add` and one `remove` at a large index, and of a search from a
worker thread (as `asyncio.to_thread` runs it), in CPU ms. `--tree` runs the same measurement
against other checkouts too, taking turns, so an old and a new tree compare in one run.

    python benchmarks/vector_updates.py [--chunks 100000] [--tree /path/to/old/checkout]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import asyncio, json, time
import numpy as np
from remecli.search.vectors import VectorIndex

n, d = {chunks}, 384
rng = np.random.default_rng(0)
rows = rng.standard_normal((n, d)).astype(np.float32)
rows /= np.linalg.norm(rows, axis=1, keepdims=True)
index = VectorIndex(d)
index.add(list(range(n)), rows)
index.add([n + 999], rows[:1])  # any growth of the matrix happens before timing
adds, removes = [], []
for k in range(100):
    start = time.process_time()
    index.add([n + k], rows[k : k + 1])
    adds.append(time.process_time() - start)
    start = time.process_time()
    index.remove([k * 7])
    removes.append(time.process_time() - start)

async def searches():
    wall, cpu = [], []
    for q in rng.standard_normal((60, d)).astype(np.float32):
        start, start_cpu = time.perf_counter(), time.process_time()
        await asyncio.to_thread(index.search, q, 50)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu

wall, cpu = asyncio.run(searches())
ms = lambda values: round(float(np.median(values)) * 1000, 3)
print(json.dumps({{"add": ms(adds), "remove": ms(removes), "search_wall": ms(wall),
                  "search_cpu": ms(cpu)}}))
"""


def measure(tree: Path, chunks: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(chunks=chunks)],
        capture_output=True,
        text=True,
        timeout=900,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        cwd=tree,  # `python -c` puts the working directory first on sys.path
    )
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another checkout")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    trees = [*args.tree, ROOT]
    for _ in range(args.rounds):  # taking turns: load on the machine hits every tree alike
        for tree in trees:
            r = measure(tree, args.chunks)
            print(
                f"{tree}: at {args.chunks} chunks, CPU ms p50: add {r['add']}, remove "
                f"{r['remove']}; search from a worker thread {r['search_wall']} ms wall, "
                f"{r['search_cpu']} ms CPU",
                flush=True,
            )
    extra = "".join(f" --tree {t}" for t in args.tree)
    print(f"reproduce: python benchmarks/vector_updates.py --chunks {args.chunks}{extra}")


if __name__ == "__main__":
    main()
