"""The one memory-file writer: versions, restore, shrink refusal, retention, redaction, modes."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from remecli.config.settings import MemorySettings
from remecli.notes.versions import VersionNotFound
from remecli.notes.writer import (
    ChangedMeanwhile,
    MemoryWriter,
    NotAMemoryFile,
    ShrinkRefused,
    dropped_lines,
)

KEY = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "wd"
    folder.mkdir()
    return folder


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_write_leaves_a_version_and_restore_brings_one_back(root: Path) -> None:
    writer = MemoryWriter(root)
    writer.write("memory/2025-01-01.md", "# day\n- a\n", source="summarizer")
    writer.write("memory/2025-01-01.md", "# day\n- a\n- b\n", source="agent edit")
    versions = writer.history("memory/2025-01-01.md")
    assert [(v.version, v.source) for v in versions] == [(1, "summarizer"), (2, "agent edit")]
    assert versions[1].bytes == len("# day\n- a\n- b\n")
    result = writer.restore("memory/2025-01-01.md", 1)
    assert (root / "memory/2025-01-01.md").read_text() == "# day\n- a\n"
    assert result.version == 3
    assert writer.history("memory/2025-01-01.md")[-1].source == "restore of version 1"
    # restoring never loses the state it replaces: version 2 is still there
    assert writer.store.content("memory/2025-01-01.md", 2) == b"# day\n- a\n- b\n"


def test_content_written_by_hand_is_kept_before_it_is_replaced(root: Path) -> None:
    (root / "MEMORY.md").write_text("# MEMORY\n- user line\n")
    writer = MemoryWriter(root)
    writer.write("MEMORY.md", "# MEMORY\n- user line\n- agent line\n", source="agent write")
    (root / "MEMORY.md").write_text("# MEMORY\n- user line\n- agent line\n- typed by hand\n")
    writer.write(
        "MEMORY.md", "# MEMORY\n- user line\n- agent line\n- typed by hand\n- more\n", source="x"
    )
    sources = [v.source for v in writer.history("MEMORY.md")]
    assert sources == [
        "content before the first recorded write",
        "agent write",
        "edit outside",
        "x",
    ]
    assert writer.store.content("MEMORY.md", 1) == b"# MEMORY\n- user line\n"
    assert b"typed by hand" in writer.store.content("MEMORY.md", 3)


def test_a_write_dropping_lines_is_refused_and_says_to_use_edit(root: Path) -> None:
    writer = MemoryWriter(root)
    day = "\n".join(f"- fact {i}" for i in range(3000)) + "\n"
    writer.write("memory/2025-01-01.md", day, source="summarizer")
    first_page = "\n".join(f"- fact {i}" for i in range(2000)) + "\n- new fact\n"
    with pytest.raises(ShrinkRefused, match="drop 1000 existing line.*Use `edit`"):
        writer.write("memory/2025-01-01.md", first_page, source="summarizer")
    assert (root / "memory/2025-01-01.md").read_text() == day
    assert len(writer.history("memory/2025-01-01.md")) == 1
    # meant: allowed, and the old content stays recoverable
    writer.write("memory/2025-01-01.md", first_page, source="summarizer", allow_shrink=True)
    assert writer.store.content("memory/2025-01-01.md", 1).decode() == day


def test_dropped_lines_ignores_blank_lines_and_counts_repeats() -> None:
    assert dropped_lines("a\n\nb\n", "b\na\n") == []
    assert dropped_lines("- x\n- x\n", "- x\n") == ["- x"]
    assert dropped_lines("a  \n", "a\n") == []


def test_retention_keeps_the_newest_versions(root: Path) -> None:
    writer = MemoryWriter(root, keep=3)
    for i in range(6):
        writer.write("digest/wiki/x.md", "".join(f"{n}\n" for n in range(i + 1)), source=f"w{i}")
    versions = writer.history("digest/wiki/x.md")
    assert [v.version for v in versions] == [4, 5, 6]
    snapshots = sorted(p.name for p in writer.store.file_folder("digest/wiki/x.md").glob("*.gz"))
    assert snapshots == ["000004.gz", "000005.gz", "000006.gz"]
    with pytest.raises(VersionNotFound, match="no version 1 .kept: 4, 5, 6"):
        writer.restore("digest/wiki/x.md", 1)


def test_secrets_are_redacted_before_they_reach_disk_or_history(root: Path) -> None:
    writer = MemoryWriter(root)
    result = writer.write("MEMORY.md", f"# MEMORY\n- CI token {KEY}\n", source="agent")
    assert result.redacted == ["github_token"]
    assert KEY not in (root / "MEMORY.md").read_text()
    assert "[REDACTED:github_token]" in (root / "MEMORY.md").read_text()
    assert KEY.encode() not in writer.store.content("MEMORY.md", result.version or 0)
    off = MemoryWriter(root / "other", redact=False)
    (root / "other").mkdir()
    off.write("MEMORY.md", f"{KEY}\n", source="agent")
    assert KEY in (root / "other/MEMORY.md").read_text()


def test_a_hand_typed_secret_does_not_block_a_write_as_a_dropped_line(root: Path) -> None:
    (root / "MEMORY.md").write_text(f"# MEMORY\n- token {KEY}\n")
    writer = MemoryWriter(root)
    writer.write("MEMORY.md", f"# MEMORY\n- token {KEY}\n- more\n", source="agent")
    assert "[REDACTED:github_token]" in (root / "MEMORY.md").read_text()


def test_new_files_are_private_and_existing_modes_are_kept(root: Path) -> None:
    writer = MemoryWriter(root)
    writer.write("memory/2025-01-01/deploy.md", "card\n", source="summarizer")
    assert mode(root / "memory/2025-01-01/deploy.md") == 0o600
    assert mode(root / "memory/2025-01-01") == 0o700
    assert mode(root / ".history") == 0o700
    folder = writer.store.file_folder("memory/2025-01-01/deploy.md")
    assert mode(folder) == 0o700
    assert all(mode(p) == 0o600 for p in folder.iterdir())
    (root / "MEMORY.md").write_text("# M\n")
    os.chmod(root / "MEMORY.md", 0o640)
    writer.write("MEMORY.md", "# M\n- x\n", source="agent")
    assert mode(root / "MEMORY.md") == 0o640


def test_only_memory_files_are_written(root: Path, tmp_path: Path) -> None:
    writer = MemoryWriter(root)
    for bad in ("notes.md", "sessions/a.jsonl", "../escape.md", str(tmp_path / "x.md"), "memory"):
        with pytest.raises(NotAMemoryFile):
            writer.write(bad, "x", source="test")
    assert writer.is_memory_file(root / "digest/personal/tabs.md")


def test_expected_content_detects_a_concurrent_change(root: Path) -> None:
    writer = MemoryWriter(root)
    writer.write("MEMORY.md", "a\n", source="agent")
    seen = (root / "MEMORY.md").read_text()
    (root / "MEMORY.md").write_text("rewritten by the editor\n")
    with pytest.raises(ChangedMeanwhile, match="read it again"):
        writer.write("MEMORY.md", seen + "b\n", source="agent", expected=seen)
    assert "rewritten by the editor" in (root / "MEMORY.md").read_text()
    # issue 25.2: lines appended since are not a conflict: they are kept after the new content
    (root / "MEMORY.md").write_text("a\nappended by the editor\n")
    writer.write("MEMORY.md", "a\nb\n", source="agent", expected="a\n")
    assert (root / "MEMORY.md").read_text() == "a\nb\nappended by the editor\n"
    with pytest.raises(ChangedMeanwhile):
        writer.write("memory/new.md", "x\n", source="agent", expected="not there")
    writer.write("memory/new.md", "x\n", source="agent", expected=None)


def test_remove_keeps_the_last_content_and_restore_undoes_it(root: Path) -> None:
    writer = MemoryWriter(root)
    (root / "memory").mkdir()
    (root / "memory/old.md").write_text("hand written\n")
    version = writer.remove("memory/old.md", source="rename to memory/new.md")
    assert version is not None and version.deleted
    assert not (root / "memory/old.md").exists()
    writer.restore("memory/old.md", 1)
    assert (root / "memory/old.md").read_text() == "hand written\n"


def test_an_unchanged_write_records_nothing(root: Path) -> None:
    writer = MemoryWriter(root)
    writer.write("MEMORY.md", "a\n", source="agent")
    result = writer.write("MEMORY.md", "a\n", source="agent")
    assert not result.changed and len(writer.history("MEMORY.md")) == 1


def test_history_can_be_switched_off_by_settings(root: Path) -> None:
    settings = MemorySettings(history={"enabled": False}, redact_secrets=False)
    writer = MemoryWriter.from_settings(root, settings)
    writer.write("MEMORY.md", f"{KEY}\n", source="agent")
    assert not (root / ".history").exists()
    assert KEY in (root / "MEMORY.md").read_text()


def test_concurrent_writers_lose_no_version(root: Path) -> None:
    writers = [MemoryWriter(root) for _ in range(4)]  # separate instances: the file lock counts
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            for n in range(10):
                writers[index].write(
                    f"memory/w{index}.md", f"{n}\n", source=f"w{index}", allow_shrink=True
                )
                writers[index].write("MEMORY.md", f"{index}-{n}\n", source="x", allow_shrink=True)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    numbers = [v.version for v in writers[0].history("MEMORY.md")]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) == 40


def test_a_version_lost_in_a_crash_is_recovered_from_the_file_at_the_next_write(
    root: Path,
) -> None:
    writer = MemoryWriter(root)
    writer.write("MEMORY.md", "a\n", source="agent")
    writer.write("MEMORY.md", "a\nb\n", source="agent")
    (writer.store.file_folder("MEMORY.md") / "000002.gz").unlink()  # as if never flushed
    writer.write("MEMORY.md", "a\nb\nc\n", source="agent")
    versions = writer.history("MEMORY.md")
    assert [v.source for v in versions] == ["agent", "agent", "edit outside", "agent"]
    assert writer.store.content("MEMORY.md", 3) == b"a\nb\n"


def test_a_torn_log_line_is_skipped_and_the_next_record_stays_whole(root: Path) -> None:
    writer = MemoryWriter(root)
    writer.write("MEMORY.md", "a\n", source="agent")
    log = writer.store.file_folder("MEMORY.md") / "versions.jsonl"
    log.write_bytes(log.read_bytes() + b'{"version": 2, "ti')  # a crash mid-append
    writer.write("MEMORY.md", "a\nb\n", source="agent")
    assert [v.version for v in writer.history("MEMORY.md")] == [1, 2]
