"""Two memory homes and a local bare git remote, synced by real `remecli sync` processes."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli_process import run_remecli


@dataclass
class Home:
    """One machine's memory (`root`), named `machine` in commits and conflict markers."""

    root: Path
    machine: str
    cwd: Path

    def settings(self) -> list[str]:
        return [
            f"working_dir={self.root}",
            f"sync.machine={self.machine}",
            "search.embedding.backend=none",
        ]

    def remecli(self, *args: str, env: dict[str, str] | None = None):
        return run_remecli(*args, *self.settings(), cwd=self.cwd, env=env, timeout=120)

    def sync(self, *args: str, env: dict[str, str] | None = None):
        return self.remecli("sync", *args, env=env)

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")


@dataclass
class Pair:
    remote: Path
    laptop: Home
    desktop: Home

    def remote_files(self) -> list[str]:
        done = subprocess.run(
            ["git", "--git-dir", str(self.remote), "ls-tree", "-r", "--name-only", "main"],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.split()

    def remote_history(self) -> str:
        done = subprocess.run(
            ["git", "--git-dir", str(self.remote), "log", "--all", "-p"],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout


MEMORY = "# MEMORY\n\n- editor: vim\n- shell: zsh\n- host: stg-7\n- lang: python\n- os: debian\n"


@pytest.fixture
def pair(tmp_path: Path) -> Pair:
    """A bare remote and two homes set up against it, both holding the same MEMORY.md (each
    made before the other was synced: their first sync merges two unrelated histories)."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    laptop = Home(tmp_path / "laptop" / ".reme", "laptop", tmp_path)
    desktop = Home(tmp_path / "desktop" / ".reme", "desktop", tmp_path)
    laptop.write("MEMORY.md", MEMORY)
    desktop.write("MEMORY.md", MEMORY)
    first = laptop.sync("init", str(remote))
    assert first.returncode == 0, first.stderr
    second = desktop.sync("init", str(remote))
    assert second.returncode == 0, second.stderr
    assert desktop.read("MEMORY.md") == MEMORY
    return Pair(remote, laptop, desktop)
