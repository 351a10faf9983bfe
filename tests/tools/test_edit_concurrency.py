"""`edit` under a concurrent appender, and on files too big to edit."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

from remecli.tools.edit import edit
from tests.tools.conftest import make_ctx

_APPENDER = r"""
import sys, time
path, stop = sys.argv[1], sys.argv[2]
import os
n = 0
while not os.path.exists(stop):
    with open(path, "a") as out:          # like an editor or `echo >>`: open, append, close
        out.write(f"appended {n}\n")
    n += 1
    time.sleep(0.001)
print(n)
"""


async def test_edit_loses_no_line_a_concurrent_appender_writes(workspace: Path) -> None:
    memory = workspace / "MEMORY.md"
    memory.write_text("# MEMORY\n\nstatus: 0\n\n")
    stop = workspace / "stop"
    appender = subprocess.Popen(
        [sys.executable, "-c", _APPENDER, str(memory), str(stop)], stdout=subprocess.PIPE, text=True
    )
    ctx = make_ctx(workspace)
    try:
        deadline = time.monotonic() + 10
        while "appended 5" not in memory.read_text() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        for step in range(60):
            result = await edit(ctx, "MEMORY.md", f"status: {step}\n", f"status: {step + 1}\n")
            assert not result.is_error, result.text
    finally:
        stop.write_text("")
        written = int(appender.communicate(timeout=30)[0])
    lines = memory.read_text().splitlines()
    assert "status: 60" in lines
    missing = [n for n in range(written) if f"appended {n}" not in lines]
    assert written > 60 and missing == [], f"{len(missing)} of {written} appended lines lost"


async def test_edit_refuses_a_file_over_the_size_cap(workspace: Path) -> None:
    big = workspace / "big.log"
    with open(big, "wb") as out:
        out.write(b"needle\n")
        out.truncate(1 << 30)  # 1 GB, sparse: costs no disk
    result = await edit(make_ctx(workspace), "big.log", "needle", "pin")
    text = result.text
    assert result.is_error and "1.0 GB" in text and "tools.edit_max_bytes" in text
    assert big.stat().st_size == 1 << 30


async def test_edit_size_cap_is_a_setting(workspace: Path) -> None:
    (workspace / "a.txt").write_text("x" * 5000 + "\nold\n")
    small = make_ctx(workspace, edit_max_bytes=1000)
    assert (await edit(small, "a.txt", "old", "new")).is_error
    assert not (await edit(make_ctx(workspace), "a.txt", "old", "new")).is_error
