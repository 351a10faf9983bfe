"""`read` streams: a huge sparse file is never loaded, and what is shown says what was left out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from remecli.tools.read import read
from tests.tools.conftest import make_ctx


def _sparse(path: Path, size: int, head_lines: int = 800) -> None:
    with open(path, "wb") as out:
        out.write("".join(f"text line {n}\n" for n in range(head_lines)).encode())
        out.truncate(size)


async def test_read_of_a_huge_sparse_file_shows_the_text_and_says_the_rest_is_uncounted(
    workspace: Path,
) -> None:
    _sparse(workspace / "huge.txt", 2 * 1024**3)
    result = await read(make_ctx(workspace), "huge.txt")
    text = result.text
    assert not result.is_error
    assert "text line 0" in text and "text line 799" in text
    assert "binary data" in text and "\x00" not in text
    assert "at least" in text and "too big to count" in text
    assert result.metadata["exact_total"] is False


async def test_long_lines_are_cut_and_counting_stays_exact_on_normal_files(workspace: Path) -> None:
    (workspace / "wide.txt").write_text("a" * 100_000 + "\nsecond\n")
    result = await read(make_ctx(workspace), "wide.txt")
    text = result.text
    assert "line cut at 2000 characters" in text and "second" in text
    assert result.metadata["total_lines"] == 2 and result.metadata["exact_total"] is True


_MEASURE = r"""
import asyncio, resource, sys
from pathlib import Path
from remecli.config.settings import ToolSettings
from remecli.tools.context import ToolContext
from remecli.tools.read import read
from remecli.notes.writer import MemoryWriter
folder = Path(sys.argv[1])
ctx = ToolContext(workspace=folder, working_dir=folder / ".reme", settings=ToolSettings(),
                  writer=MemoryWriter(folder / ".reme"))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
asyncio.run(read(ctx, "huge.txt"))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def test_read_of_a_2gb_file_adds_little_memory(workspace: Path) -> None:
    _sparse(workspace / "huge.txt", 2 * 1024**3)
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(workspace)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    added_kb = json.loads(proc.stdout.strip().splitlines()[-1])
    assert added_kb < 64 * 1024, f"read added {added_kb} KB of RSS"  # the old code added > 2 GB
