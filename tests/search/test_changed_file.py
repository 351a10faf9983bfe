"""The stat-and-skip step every file goes through before a sync reads it."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from remecli.search.sync import changed_file


def test_a_file_with_its_known_mtime_and_size_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_text("# Note\n", encoding="utf-8")
    stat = path.stat()
    assert changed_file("note.md", path, ("hash", stat.st_mtime_ns, stat.st_size)) is None
    new = changed_file("note.md", path, None)
    assert new is not None and (new.rel, new.path, new.known) == ("note.md", path, None)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    touched = changed_file("note.md", path, ("hash", stat.st_mtime_ns, stat.st_size))
    assert touched is not None and touched.stat.st_mtime_ns == stat.st_mtime_ns + 1_000_000
    assert touched.known == ("hash", stat.st_mtime_ns, stat.st_size)


def test_a_file_gone_before_its_stat_is_logged_and_skipped(tmp_path: Path, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="remecli.search.sync"):
        assert changed_file("gone.md", tmp_path / "gone.md", None) is None
    assert "cannot read" in caplog.text and "gone.md" in caplog.text
