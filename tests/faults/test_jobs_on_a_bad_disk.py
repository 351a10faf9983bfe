"""The memory jobs run from the shell on a bad disk (issue 39.8): `remecli dream` and
`remecli ingest` (a resource, a file from elsewhere, every resource) on a read-only working dir
and on a full one. Nothing is lost or half-written (the cards and the resource stay as they
were; nothing is sent to the model), one line says what to do, the exit code is 1, and the
same command run again once the disk is writable does the work. Real processes, a real
read-only bind mount or a small tmpfs in a private mount namespace; the model is the fake
server."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from remecli.notes.layout import WorkingDir
from tests.cli_process import fake_llm_settings
from tests.dream.conftest import add_card, extraction, receipt, unit
from tests.faults.mounts import need_namespaces, read_only, small_disk
from tests.resources.conftest import answer

DAY = dt.date(2025, 1, 31)
NODE = "digest/personal/tabs-not-spaces.md"
NODE_TEXT = (
    "---\nname: Tabs not spaces\ndescription: The user indents Go code with tabs.\n---\n"
    "The user wants tabs in Go code.\n\n## Sources\n- Said in [[memory/2025-01-31/style.md]].\n"
)


def _commands(root: Path, outside: Path) -> list[list[str]]:
    """A dream, an ingest of a resource, of a file from elsewhere, of every resource."""
    plan = str(root / "resource" / "plan.md")
    return [["dream", "date=2025-01-31"], ["ingest", plan], ["ingest", str(outside)], ["ingest"]]


def _argv(working_dir: Path, url: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "remecli", *args, *fake_llm_settings(working_dir, url)]


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    return subprocess.run(argv, capture_output=True, text=True, timeout=180, cwd=cwd, env=env)


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and "fillers" not in p.parts
    }


def _memory(root: Path, outside: Path) -> str:
    """A card of DAY and a resource in working dir `root`, a file to ingest at `outside`; the
    card's relative path."""
    card = add_card(WorkingDir(root), DAY, "style", "Style", "The user indents Go code with tabs.")
    (root / "resource").mkdir()
    (root / "resource" / "plan.md").write_text("# Plan\n\nMigrate atlas in March.\n")
    outside.write_text("# Notes\n\nPager rotates weekly.\n", encoding="utf-8")
    return card


def _refused(done: subprocess.CompletedProcess[str], words: str) -> None:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "Logging error" not in done.stderr, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert words in line and "nothing was changed" in line and "run the command again" in line


def _works_again(commands: list[list[str]], fake_llm, card: str, cwd: Path) -> None:
    """The same commands (`commands[:2]`, each a full argv) after the fault: the dream and the
    ingest do their work."""
    fake_llm.add_text(extraction([unit("Tabs not spaces", "personal", "tabs in Go", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": NODE_TEXT})])
    fake_llm.add_text(receipt("CREATE", NODE))
    fake_llm.add_text(answer("Atlas migration", "Atlas moves in March."))
    dreamt = _run(commands[0], cwd)
    assert dreamt.returncode == 0 and NODE in dreamt.stdout, dreamt.stderr
    ingested = _run(commands[1], cwd)
    assert ingested.returncode == 0 and ingested.stdout.startswith("created"), ingested.stderr


@pytest.mark.timeout(600)  # real processes on a shared machine
def test_dream_and_ingest_on_a_read_only_dir_change_nothing_and_say_so(
    tmp_path: Path, fake_llm
) -> None:
    need_namespaces()
    root = WorkingDir(tmp_path / ".reme").ensure().root
    outside = tmp_path / "notes.md"
    card = _memory(root, outside)
    before = _tree(root)
    commands = [_argv(root, fake_llm.base_url, *a) for a in _commands(root, outside)]
    for argv in commands:
        _refused(_run(read_only(root, argv), tmp_path), "cannot be written (Read-only file system)")
    assert _tree(root) == before
    assert fake_llm.chat_requests() == []
    _works_again(commands, fake_llm, card, tmp_path)


@pytest.mark.timeout(600)  # real processes on a shared machine
def test_dream_and_ingest_on_a_full_disk_change_nothing_and_say_so(
    tmp_path: Path, fake_llm
) -> None:
    need_namespaces()
    with small_disk(tmp_path / "disk") as disk:
        root = disk.mount_point / ".reme"
        seen = disk.path(root)  # the same folder as this process reaches it
        outside = tmp_path / "notes.md"
        card = _memory(tmp_path / "made", outside)  # made here, copied onto the disk
        shutil.copytree(tmp_path / "made", seen)
        before = _tree(seen)
        commands = [disk.argv(_argv(root, fake_llm.base_url, *a)) for a in _commands(root, outside)]
        disk.fill()
        for argv in commands:
            _refused(_run(argv, tmp_path), "the disk is full")
        assert _tree(seen) == before
        assert fake_llm.chat_requests() == []
        disk.free()
        _works_again(commands, fake_llm, card, tmp_path)
