"""Sync under faults, with real processes: a push the remote rejects because the other machine
pushed meanwhile, and a sync killed (SIGKILL) in the middle of a pull or before its push.

A `git` first on PATH stands in front of the real one: on the step named in its marker file it
does the fault (runs the other machine's sync, or kills the sync calling it), once."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from tests.sync.conftest import MEMORY, Pair

WRAPPER = """#!{python}
import os, signal, subprocess, sys
args = sys.argv[1:]
marker = {marker!r}
if os.path.exists(marker):
    step = open(marker).read().split()
    if all(word in args for word in step[1:]):
        os.unlink(marker)
        if step[0] == "kill":
            os.kill(os.getppid(), signal.SIGKILL)
            sys.exit(1)
        subprocess.run({other!r}, check=True, capture_output=True)
os.execv({git!r}, ["git", *args])
"""


def faulty_git(tmp_path: Path, pair: Pair) -> tuple[dict[str, str], Path]:
    """The environment putting the wrapper first on PATH, and its marker file."""
    folder = tmp_path / "bin"
    folder.mkdir()
    marker = tmp_path / "fault"
    other = [sys.executable, "-m", "remecli", "sync", *pair.desktop.settings()]
    script = folder / "git"
    script.write_text(
        WRAPPER.format(
            python=sys.executable, marker=str(marker), other=other, git=shutil.which("git")
        ),
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}, marker


def test_a_rejected_push_merges_again_and_pushes(pair: Pair, tmp_path: Path) -> None:
    env, marker = faulty_git(tmp_path, pair)
    pair.laptop.write("MEMORY.md", MEMORY + "- from the laptop\n")
    pair.desktop.write("MEMORY.md", MEMORY.replace("shell: zsh", "shell: fish"))
    marker.write_text("other push", encoding="utf-8")  # the desktop pushes first
    done = pair.laptop.sync(env=env)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    want = MEMORY.replace("shell: zsh", "shell: fish") + "- from the laptop\n"
    assert pair.laptop.read("MEMORY.md") == want
    assert pair.desktop.sync().returncode == 0
    assert pair.desktop.read("MEMORY.md") == want


@pytest.mark.parametrize("step", ["update-ref HEAD", "merge-tree", "push"])
def test_a_sync_killed_midway_is_completed_by_the_next(
    pair: Pair, tmp_path: Path, step: str
) -> None:
    env, marker = faulty_git(tmp_path, pair)
    pair.desktop.write("MEMORY.md", MEMORY + "- from the desktop\n")
    pair.desktop.write("memory/2026-01-05/desk.md", "---\nname: D\ntags: [x]\n---\ndesk\n")
    assert pair.desktop.sync().returncode == 0
    pair.laptop.write("MEMORY.md", MEMORY.replace("lang: python", "lang: rust"))
    marker.write_text(f"kill {step}", encoding="utf-8")
    killed = pair.laptop.sync(env=env)
    assert killed.returncode == -9 and not marker.exists()
    assert "<<<<<<<" not in pair.laptop.read("MEMORY.md")  # whole files, old or merged
    done = pair.laptop.sync(env=env)
    assert done.returncode == 0, done.stderr
    assert pair.desktop.sync().returncode == 0
    want = MEMORY.replace("lang: python", "lang: rust") + "- from the desktop\n"
    for home in (pair.laptop, pair.desktop):
        assert home.read("MEMORY.md") == want
        assert home.read("memory/2026-01-05/desk.md").endswith("desk\n")
    assert "conflict" not in pair.laptop.sync("status").stdout


def test_serve_syncs_by_itself_when_auto_is_on(pair: Pair) -> None:
    """`remecli serve` with sync.auto on syncs at start and every interval, in the background."""
    import time

    from tests.surfaces.helpers import start_surface

    pair.laptop.write("memory/2026-01-05/served.md", "---\nname: S\n---\nfrom serve\n")
    settings = [*pair.laptop.settings(), "search.watch=false", "llm.base_url=http://127.0.0.1:9/v1"]
    auto = ["sync.auto=true", "sync.interval_minutes=0.02"]
    surface = start_surface(["serve", "--port", "0", *settings, *auto])
    try:
        deadline = time.monotonic() + 90
        while "memory/2026-01-05/served.md" not in pair.remote_files():
            assert time.monotonic() < deadline, "".join(surface.stderr)
            time.sleep(0.5)
        pair.desktop.write("memory/2026-01-05/desk.md", "---\nname: D\n---\nfrom the desktop\n")
        assert pair.desktop.sync().returncode == 0
        desk = pair.laptop.root / "memory/2026-01-05/desk.md"
        while not desk.exists():  # the next tick pulls it
            assert time.monotonic() < deadline, "".join(surface.stderr)
            time.sleep(0.5)
    finally:
        assert surface.stop() == 0
