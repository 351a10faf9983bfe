"""The one file service: paging boundaries, the symlink rule, memory writes (redacted,
versioned), edits, and which paths are memory files."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from remecli.notes.file_service import FileService, page_lines
from remecli.notes.file_service.editing import FileMissing, NotReplaced, TooBig
from remecli.notes.file_service.paging import as_is
from remecli.notes.file_service.reading import COUNT_SCAN_BYTES, StartCharPastLine
from remecli.notes.writer import MemoryWriter, ShrinkRefused

KEY = "sk-proj-" + "x7Qm2LkP9aZr4TgH1vNc8BdE5fWs3Yj6uKo0IpMn"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "reme"
    folder.mkdir()
    return folder


@pytest.fixture
def files(root: Path) -> FileService:
    return FileService(MemoryWriter(root))


def lines(n: int) -> list[str]:
    return [f"line {k}\n" for k in range(1, n + 1)]


# ----------------------------------------------------------------------------------- paging
@pytest.mark.parametrize(
    ("start", "count", "shown", "total"),
    [
        (1, 10, (1, 10), 10),  # exactly the whole source
        (1, 9, (1, 9), 10),  # one short of the end
        (10, 5, (10, 10), 10),  # the last line alone
        (11, 5, (11, 10), 10),  # past the end: nothing shown, first > last
        (3, 1, (3, 3), 10),
    ],
)
def test_page_boundaries(start: int, count: int, shown: tuple[int, int], total: int) -> None:
    page = page_lines(lines(10), start, count, as_is)
    assert (page.first_line, page.last_line) == shown
    assert page.total_lines == total and page.exact_total
    assert page.lines == lines(10)[shown[0] - 1 : shown[1]]


def test_budget_always_shows_the_first_line_and_stops_at_the_first_that_does_not_fit() -> None:
    source = ["a" * 50, "b" * 10, "c" * 10, "d"]
    page = page_lines(source, 1, 10, as_is, budget=20)
    assert page.lines == ["a" * 50]  # over the budget alone, still shown
    page = page_lines(source, 2, 10, as_is, budget=20)
    assert page.lines == ["b" * 10, "c" * 10]  # exactly the budget fits
    assert page.total_lines == 4  # lines past the page are still counted


def test_only_shown_lines_are_rendered_and_counting_can_stop() -> None:
    rendered: list[int] = []

    def render(number: int, line: str) -> str:
        rendered.append(number)
        return line

    asked = iter([True, False])
    page = page_lines(lines(100), 5, 2, render, keep_counting=lambda: next(asked))
    assert rendered == [5, 6]
    assert not page.exact_total and page.total_lines == 8  # a lower bound


def test_empty_source() -> None:
    page = page_lines([], 1, 5, as_is)
    assert page.total_lines == 0 and page.lines == [] and page.last_line == 0


def test_read_numbered_pages_and_counts(root: Path, files: FileService) -> None:
    path = root / "notes.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\nthr\xffee\n")
    page = files.read_numbered(path, 2, 1, 10_000)
    assert page.text == "     2\ttwo"
    assert (page.first_line, page.last_line, page.total_lines) == (2, 2, 3)
    assert page.truncated and page.exact_total and page.replaced == 0
    last = files.read_numbered(path, 3, 5, 10_000)
    assert last.text == "     3\tthr\ufffdee" and last.replaced == 1 and not last.truncated
    assert files.read_numbered(path, 1, 5, 10_000).text.startswith("     1\tone\n")  # BOM gone
    assert files.read_numbered(path, 4, 5, 10_000).past_end


def test_read_numbered_stops_counting_far_past_the_page(root: Path, files: FileService) -> None:
    path = root / "big.txt"
    line = b"x" * 1023 + b"\n"
    with path.open("wb") as handle:
        for _ in range(COUNT_SCAN_BYTES // len(line) + 2048):
            handle.write(line)
    page = files.read_numbered(path, 1, 3, 100_000)
    assert page.last_line == 3 and not page.exact_total
    assert page.total_lines < path.stat().st_size // len(line)


def test_read_page_hashes_the_whole_file_and_cuts_a_long_line(
    root: Path, files: FileService
) -> None:
    path = root / "MEMORY.md"
    path.write_bytes(("# M\n" + "y" * 30 + "\nlast\r\n").encode())
    whole = files.read_page(path, 1, None, max_lines=10, max_chars=100)
    assert whole.text == path.read_bytes().decode() and not whole.truncated
    assert whole.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    piece = files.read_page(path, 2, None, max_lines=10, max_chars=20)
    assert piece.text == "y" * 20 and piece.next_start_char == 20 and piece.truncated
    rest = files.read_page(path, 2, 2, max_lines=10, max_chars=20, start_char=20)
    assert rest.text == "y" * 10 + "\n" and rest.next_start_char is None and not rest.truncated
    with pytest.raises(StartCharPastLine):
        files.read_page(path, 3, None, max_lines=10, max_chars=20, start_char=9)
    more = files.read_page(path, 1, None, max_lines=1, max_chars=100)
    assert more.last_line == 1 and more.truncated  # more lines than one page holds


def test_page_text(files: FileService, root: Path) -> None:
    page = files.page_text(root / "x.md", "a\nb\nc", 2, 1)
    assert page.text == "b\n" and page.truncated and page.total_lines == 3


# ---------------------------------------------------------------------- workspace symlinks
def test_a_symlink_out_of_the_workspace_leaves_it(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    outside = tmp_path / "elsewhere"
    workspace.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    os.symlink(outside, workspace / "link")
    (workspace / "inner").mkdir()
    os.symlink(workspace / "inner", workspace / "inside-link")
    assert FileService.leaves_workspace(workspace / "link" / "secret.txt", workspace)
    assert not FileService.leaves_workspace(workspace / "inside-link", workspace)
    assert not FileService.leaves_workspace(workspace / "plain.txt", workspace)
    assert not FileService.leaves_workspace(outside / "secret.txt", workspace)  # not named in


# --------------------------------------------------------------------------------- writes
def test_a_memory_write_is_redacted_and_versioned(root: Path, files: FileService) -> None:
    target = root / "memory" / "notes.md"
    written = files.write(target, f"- key {KEY}\n- keep\n", source="test")
    assert written.memory and written.created and written.changed
    assert written.redactions == ("openai_key",)
    assert KEY not in target.read_text()
    again = files.write(target, target.read_text() + "- more\n", source="test again")
    assert again.version is not None and again.version > (written.version or 0)
    assert [v.source for v in files.writer.history(target)] == ["test", "test again"]
    with pytest.raises(ShrinkRefused):
        files.write(target, "- only this\n", source="test")


def test_other_files_are_written_plainly(tmp_path: Path, files: FileService) -> None:
    target = tmp_path / "work" / "notes.md"
    written = files.write(target, f"key {KEY}\n", source="test")
    assert not written.memory and written.version is None and written.redactions == ()
    assert target.read_text() == f"key {KEY}\n"  # outside memory: no redaction


def test_edit_replaces_once_and_versions_memory_files(root: Path, files: FileService) -> None:
    target = root / "MEMORY.md"
    files.write(target, "# M\n- one\n- two\n", source="seed")
    done = files.edit(target, "- two", f"- 2 {KEY}", max_bytes=1_000)
    assert done.memory and done.line == 3 and not done.tolerant
    assert KEY not in target.read_text() and "- 2 " in target.read_text()
    assert files.writer.history(target)[-1].source == "edit"
    with pytest.raises(NotReplaced) as refused:
        files.edit(target, "- three", "- 3", max_bytes=1_000)
    assert refused.value.refused.reason == "not_found"
    with pytest.raises(TooBig):
        files.edit(target, "- one", "- 1", max_bytes=4)
    with pytest.raises(FileMissing):
        files.edit(root / "memory" / "none.md", "a", "b", max_bytes=1_000)


# ------------------------------------------------------------------------ memory files
def test_is_memory_file_edge_cases(root: Path, tmp_path: Path, files: FileService) -> None:
    (root / "memory").mkdir()
    (root / "digest" / "wiki").mkdir(parents=True)
    assert files.is_memory_file(root / "MEMORY.md")
    assert files.is_memory_file(root / "memory" / "2025-01-31.md")
    assert files.is_memory_file(root / "digest" / "wiki" / "x.md")
    assert files.is_memory_file(root / "memory" / "notes.txt")  # any file in the folders
    assert not files.is_memory_file(root / "memory")  # the folder itself
    assert not files.is_memory_file(root / "memory" / ".hidden.md")
    assert not files.is_memory_file(root / "sessions" / "a.md")
    assert not files.is_memory_file(root / "memory.md")  # case matters
    assert not files.is_memory_file(tmp_path / "MEMORY.md")  # another folder's
    assert files.is_memory_file("MEMORY.md")  # relative to the working dir
    os.symlink(tmp_path, root / "memory" / "out")
    assert not files.is_memory_file(root / "memory" / "out" / "x.md")  # leads out
    os.symlink(root / "MEMORY.md", tmp_path / "alias.md")
    assert files.is_memory_file(tmp_path / "alias.md")  # leads in: the real file counts
    assert files.memory_note(root / "memory" / "notes.txt") is None  # not Markdown
    assert files.memory_note(root / "digest" / "wiki" / "x.md") == "digest/wiki/x.md"
