"""The atomic writer never touches the process umask (other threads create files meanwhile)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from remecli.notes.atomic_write import atomic_write_text


def test_new_files_get_the_umask_mode_without_calling_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mask = os.umask(0o027)
    os.umask(0o027)

    def forbidden(_: int) -> int:
        raise AssertionError("os.umask called while writing")

    monkeypatch.setattr(os, "umask", forbidden)
    try:
        atomic_write_text(tmp_path / "a.txt", "hello")
        assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o640
        atomic_write_text(tmp_path / "b.txt", "secret", new_mode=0o600)
        assert stat.S_IMODE((tmp_path / "b.txt").stat().st_mode) == 0o600
    finally:
        monkeypatch.undo()
        os.umask(mask)


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_text("old")
    target.chmod(0o604)
    atomic_write_text(target, "new", new_mode=0o600)
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o604
