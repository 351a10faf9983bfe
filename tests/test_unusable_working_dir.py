"""A working dir remecli cannot write (issue 15.17): one line saying what to do, exit 2, no
traceback — in every front-end, before anything starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("front_end", [["-p", "hello"], ["ui=plain"]])
def test_a_working_dir_that_cannot_be_written_is_one_clear_line(
    tmp_path: Path, front_end: list[str]
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the working dir should be\n")
    proc = subprocess.run(
        [sys.executable, "-m", "remecli", *front_end, f"working_dir={blocker / '.reme'}"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot be written" in lines[0] and "working_dir=PATH" in lines[0]
    assert "Traceback" not in proc.stderr
