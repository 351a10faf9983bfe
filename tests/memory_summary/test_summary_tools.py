"""The confined file tools on their own: what they allow, refuse and never clobber."""

from __future__ import annotations

import pytest

from remecli.knowledge.summary.tools import MemoryFileTools
from remecli.notes.writer import MemoryWriter
from tests.memory_summary.conftest import DAILY, DAY


@pytest.fixture
def tools(working_dir) -> MemoryFileTools:
    return MemoryFileTools(working_dir, DAY, writer=MemoryWriter(working_dir.root))


@pytest.mark.parametrize(
    "path",
    ["../x.md", "/etc/passwd", "memory/a.txt", "memory", "sessions/a.md", "index/x.md", ""],
)
async def test_refused_paths(tools, path):
    result = await tools.read(path)
    assert result.is_error
    assert "refused" in result.text or "empty" in result.text


async def test_symlink_out_of_the_memory_folder_is_refused(tools, working_dir, tmp_path):
    (tmp_path / "outside.md").write_text("secret")
    (working_dir.memory_dir / "link.md").symlink_to(tmp_path / "outside.md")
    result = await tools.write("memory/link.md", "x")
    assert result.is_error and "refused" in result.text
    assert (tmp_path / "outside.md").read_text() == "secret"


async def test_a_hidden_file_is_no_memory_note_for_the_summarizer(tools, working_dir):
    """The file service's one rule: a hidden name under memory/ is not a memory note (the
    writer would not version or redact it), so the summarizer may not read or create it."""
    for result in (
        await tools.read("memory/.draft.md"),
        await tools.write("memory/.draft.md", "x"),
    ):
        assert result.is_error and "refused" in result.text
    assert not (working_dir.memory_dir / ".draft.md").exists()


async def test_allowed_paths(tools, working_dir):
    assert not (await tools.read("MEMORY.md")).is_error
    assert not (await tools.write("memory/projects/atlas.md", "# Atlas\n")).is_error
    assert (working_dir.memory_dir / "projects" / "atlas.md").read_text() == "# Atlas\n"
    assert not (await tools.read(str(working_dir.daily_file(DAY)))).is_error  # absolute inside


async def test_daily_file_gets_its_header(tools, working_dir):
    result = await tools.write(DAILY, "- 10:00 First entry.\n")
    assert not result.is_error
    assert working_dir.daily_file(DAY).read_text() == "# 2025-01-31\n\n- 10:00 First entry.\n"
    assert tools.written == [DAILY]


async def test_existing_file_must_be_read_before_write_or_edit(tools, working_dir):
    working_dir.daily_file(DAY).write_text("# 2025-01-31\n\n- 09:00 A.\n")
    assert "read it first" in (await tools.write(DAILY, "# 2025-01-31\n")).text
    assert "Read" in (await tools.edit(DAILY, "- 09:00 A.", "- 09:00 B.")).text
    assert working_dir.daily_file(DAY).read_text() == "# 2025-01-31\n\n- 09:00 A.\n"


async def test_edit_must_be_unique_and_whole_lines(tools, working_dir):
    daily = working_dir.daily_file(DAY)
    daily.write_text("# 2025-01-31\n\n- 09:00 A.\n- 10:00 A.\n- note\n- note\n")
    await tools.read(DAILY)
    assert "matches 2 times" in (await tools.edit(DAILY, "- note", "- B.")).text
    assert "part of a line" in (await tools.edit(DAILY, "- 09:00", "- 09:30")).text
    result = await tools.edit(DAILY, "- 10:00  A.", "- 10:00 A, B.")  # tolerant whitespace
    assert not result.is_error, result.text
    assert daily.read_text() == "# 2025-01-31\n\n- 09:00 A.\n- 10:00 A, B.\n- note\n- note\n"


async def test_write_answers_say_what_really_happened(tools, working_dir):
    daily = working_dir.daily_file(DAY)
    daily.write_text("# 2025-01-31\n\n- 09:00 A.\n")
    await tools.read(DAILY)
    grown = await tools.write(DAILY, "# 2025-01-31\n\n- 09:00 A.\n- 10:00 B.\n")
    assert grown.text == f"Wrote {DAILY} (4 lines, was 3)."
    shrunk = await tools.write(DAILY, "# 2025-01-31\n\n- 10:00 B.\n")
    assert shrunk.is_error and "would drop 1 of the 3 lines" in shrunk.text
    assert "nothing was written" in shrunk.text and "Use `edit`" in shrunk.text
    assert daily.read_text() == "# 2025-01-31\n\n- 09:00 A.\n- 10:00 B.\n"
    edited = await tools.edit(DAILY, "- 09:00 A.\n", "")  # a deliberate removal goes through edit
    assert edited.text == f"Edited {DAILY} at line 3; 3 lines, was 4."
