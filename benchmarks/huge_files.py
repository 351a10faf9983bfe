"""Peak memory of `read` and `edit` on huge sparse files (a 2 GB file whose first 10 KB are text).

Each case runs in a fresh interpreter and prints its peak RSS (ru_maxrss) next to the RSS of
the same interpreter right before the call, so the figure is what the tool itself added.

    python benchmarks/huge_files.py [--size-gb 2] [--folder /tmp]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

_CASE = r"""
import asyncio, json, resource, sys, time
from pathlib import Path
from remecli.config.settings import ToolSettings
from remecli.tools.context import ToolContext
from remecli.tools.edit import edit
from remecli.tools.read import read
from remecli.notes.writer import MemoryWriter

folder, tool = Path(sys.argv[1]), sys.argv[2]
ctx = ToolContext(workspace=folder, working_dir=folder / ".reme", settings=ToolSettings(),
                  writer=MemoryWriter(folder / ".reme"))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
if tool == "read":
    result = asyncio.run(read(ctx, "huge.txt"))
else:
    result = asyncio.run(edit(ctx, "huge.txt", "line 7 of the text head", "line seven"))
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
text = "".join(getattr(b, "text", "") for b in result.content)
print(json.dumps({"before_kb": before, "peak_kb": peak, "seconds": seconds,
                  "state": str(result.state), "tail": text[-160:]}))
"""


def make_sparse(path: Path, size: int) -> None:
    """First ~10 KB numbered text lines, then a sparse hole up to `size` bytes."""
    with open(path, "wb") as out:
        written = 0
        number = 0
        while written < 10_000:
            line = f"line {number} of the text head\n".encode()
            out.write(line)
            written += len(line)
            number += 1
        out.truncate(size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-gb", type=float, default=2.0)
    parser.add_argument("--folder", default=tempfile.gettempdir())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.folder) as name:
        folder = Path(name)
        make_sparse(folder / "huge.txt", int(args.size_gb * 1024**3))
        print(f"file: {args.size_gb:g} GB sparse, first 10 KB text ({folder / 'huge.txt'})")
        for tool in ("read", "edit"):
            proc = subprocess.run(
                [sys.executable, "-c", _CASE, str(folder), tool],
                capture_output=True,
                text=True,
                timeout=600,
            )
            if proc.returncode != 0:
                print(f"{tool}: failed\n{proc.stderr[-2000:]}")
                continue
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            added = (row["peak_kb"] - row["before_kb"]) / 1024
            print(
                f"{tool:>4}: peak RSS {row['peak_kb'] / 1024:.0f} MB "
                f"(+{added:.0f} MB over the interpreter before the call), "
                f"{row['seconds']:.2f} s, {row['state']}: …{row['tail'].splitlines()[-1][:120]}"
            )
    print(f"command: python benchmarks/huge_files.py --size-gb {args.size_gb:g}")


if __name__ == "__main__":
    main()
