"""Ctrl+C in a long command (`remecli reindex` embedding a large memory with the local model)
ends it with one line and exit 130, never a traceback (a real process, a real SIGINT)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from remecli.notes.layout import WorkingDir


def _as_from_a_terminal() -> None:
    """SIGINT handled by default in the child, as in a shell at a terminal (a background CI
    job may start the suite with SIGINT ignored, and that is inherited across exec)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_in_reindex_ends_with_one_line(tmp_path: Path) -> None:
    layout = WorkingDir(tmp_path / ".reme").ensure()
    facts = "".join(f"- fact {n}: service node-{n} deploys on day {n % 31}\n" for n in range(20000))
    layout.memory_md.write_text(f"# Memory\n\n{facts}", encoding="utf-8")  # minutes of embedding
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "remecli", "reindex", f"working_dir={layout.root}"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_as_from_a_terminal,
    )
    cache = layout.root / "index" / "embedding_cache.sqlite"
    deadline = time.monotonic() + 60
    while not cache.exists() and process.poll() is None:  # embedding has begun
        assert time.monotonic() < deadline, "reindex never started embedding"
        time.sleep(0.2)
    assert process.poll() is None, process.communicate()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=50)
    assert process.returncode == 130, (process.returncode, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "remecli: interrupted" in err
