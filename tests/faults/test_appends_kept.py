"""Issue 25.2: lines another process appends to a memory file while remecli replaces it are kept.

A real appender process (`tests/faults/appender.py`, a line every 2 ms, opening the file for each
line like `echo >>`) runs while the memory writer replaces the same file in a loop: the day page
regenerated as cards arrive, and `memory_edit` through the job runner. Every appended line must be
in the file afterwards.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import sys
import time
from pathlib import Path

from remecli.knowledge.cards.day_page import refresh_day_page
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter
from remecli.ops import JobRunner
from tests.jobs.conftest import job_settings, seed

DAY = dt.date(2025, 1, 31)
SECONDS = 3.0


def _start_appender(path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.faults.appender", str(path), str(SECONDS), "0.002"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )


def _lost_lines(path: Path, appender: subprocess.Popen[str]) -> tuple[int, list[int]]:
    out, _ = appender.communicate(timeout=60)
    written = int(out.strip())
    found = {int(n) for n in re.findall(r"^- appended line (\d+)$", path.read_text(), re.M)}
    return written, [n for n in range(written) if n not in found]


def test_day_page_regeneration_keeps_every_appended_line(tmp_path: Path) -> None:
    working_dir = WorkingDir(tmp_path / ".reme")
    writer = MemoryWriter(working_dir.root)
    page = working_dir.daily_file(DAY)
    page.parent.mkdir(parents=True)
    page.write_text(f"# {DAY:%Y-%m-%d}\n\nMy own notes.\n")
    cards = working_dir.memory_dir / f"{DAY:%Y-%m-%d}"
    cards.mkdir()
    appender = _start_appender(page)
    rewrites = 0
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline:  # a new card each round: the index block changes
        (cards / f"card-{rewrites:04d}.md").write_text(
            f"---\nname: Card {rewrites}\ndescription: number {rewrites}\n---\nBody.\n"
        )
        rewrites += refresh_day_page(working_dir, DAY, writer)
    written, lost = _lost_lines(page, appender)
    assert rewrites > 10 and written > 100, (rewrites, written)
    assert lost == [], f"{len(lost)} of {written} appended lines lost over {rewrites} rewrites"
    assert page.read_text().count("My own notes.") == 1


async def test_memory_edit_keeps_every_appended_line(tmp_path: Path) -> None:
    seed(tmp_path / ".reme")
    memory_md = tmp_path / ".reme" / "MEMORY.md"
    memory_md.write_text("# MEMORY\n\n- counter 0\n")
    runner = JobRunner.from_settings(job_settings(tmp_path))
    await runner.start(wait_for_index=False)
    try:
        appender = _start_appender(memory_md)
        edits = 0
        deadline = time.monotonic() + SECONDS
        while time.monotonic() < deadline:
            await runner.run(
                "memory_edit",
                {"path": "MEMORY.md", "old": f"- counter {edits}", "new": f"- counter {edits + 1}"},
            )
            edits += 1
    finally:
        await runner.close()
    written, lost = _lost_lines(memory_md, appender)
    assert edits > 10 and written > 100, (edits, written)
    assert lost == [], f"{len(lost)} of {written} appended lines lost over {edits} edits"
    assert f"- counter {edits}\n" in memory_md.read_text()
