"""Syncs while another process keeps writing MEMORY.md through the memory writer: no line is
lost on either machine (the sync writes a merge under the writer's lock, and a file that changed
since it was committed is committed and merged again)."""

from __future__ import annotations

import subprocess
import sys

from tests.sync.conftest import MEMORY, Pair

WRITER = """
import sys, time
from remecli.notes.writer import ChangedMeanwhile, MemoryWriter
root, count = sys.argv[1], int(sys.argv[2])
writer = MemoryWriter(root)
for n in range(count):
    while True:
        path = writer.root / "MEMORY.md"
        current = path.read_text(encoding="utf-8")
        try:
            writer.write(path, current + f"- laptop line {n}\\n", source="test", expected=current)
            break
        except ChangedMeanwhile:
            continue
    time.sleep(0.4)
"""


def test_no_line_is_lost_while_a_writer_and_two_machines_sync(pair: Pair) -> None:
    count = 30
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(pair.laptop.root), str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        rounds = 0
        while writer.poll() is None or rounds < 2:
            rounds += 1
            pair.desktop.write("MEMORY.md", pair.desktop.read("MEMORY.md") + f"- desk {rounds}\n")
            for home in (pair.laptop, pair.desktop):
                done = home.sync()
                assert done.returncode == 0, done.stderr
    finally:
        _out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    for home in (pair.laptop, pair.desktop, pair.laptop):
        assert home.sync().returncode == 0
    text = pair.laptop.read("MEMORY.md")
    assert pair.desktop.read("MEMORY.md") == text
    assert text.startswith(MEMORY) and "<<<<<<<" not in text
    for n in range(count):
        assert text.count(f"- laptop line {n}\n") == 1, n
    assert rounds >= 2  # syncs ran while the writer wrote
    for n in range(1, rounds + 1):
        assert text.count(f"- desk {n}\n") == 1, n
