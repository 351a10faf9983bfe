"""kill -9 during a write leaves the previous file intact: `atomic_write_text` replaces atomically.

A child process rewrites a big memory file in a loop through `atomic_write_text`; it is killed
with SIGKILL at varying moments, and the file must always hold one complete version.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SIZE = 4 * 1024 * 1024

CHILD = """
import sys
from remecli.notes.files import atomic_write_text
path, size = sys.argv[1], int(sys.argv[2])
versions = ["A" * (size - 4) + "END\\n", "B" * (size - 4) + "END\\n"]
i = 0
while True:
    atomic_write_text(path, versions[i % 2])
    if i == 0:
        print("ready", flush=True)
    i += 1
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX only")
def test_kill_during_write_leaves_a_whole_file(tmp_path):
    target = tmp_path / "memory" / "2025-01-31.md"
    target.parent.mkdir()
    old = "# 2025-01-31\n\n- 09:00 The previous content.\n"
    target.write_text(old)
    whole = {old, "A" * (SIZE - 4) + "END\n", "B" * (SIZE - 4) + "END\n"}
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    rng = random.Random(5)
    for _ in range(5):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(target), str(SIZE)],
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        try:
            assert child.stdout is not None and child.stdout.readline() == "ready\n"
            time.sleep(rng.uniform(0.005, 0.08))  # kill at a different moment each round
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(10)
            if child.stdout is not None:
                child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        content = target.read_text()
        assert content in whole, f"partial file: {len(content)} chars"
