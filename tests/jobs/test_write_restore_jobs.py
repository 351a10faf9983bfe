"""memory_write (whole-file writes through the memory writer) and memory_history/restore."""

from __future__ import annotations

import pytest

from remecli.ops import JobRunner
from remecli.ops.errors import EditConflict, NotFound, PathRefused
from remecli.ops.history_jobs import RestoreParams, memory_restore


async def test_write_creates_refuses_to_drop_lines_and_allows_it_when_asked(
    runner: JobRunner,
) -> None:
    root = runner.context.root
    made = await runner.run(
        "memory_write", {"path": "memory/notes.md", "content": "# notes\n- one\n- two\n"}
    )
    assert made["created"] and made["path"] == "memory/notes.md" and made["redacted"] == []
    with pytest.raises(EditConflict, match="allow_shrink"):
        await runner.run("memory_write", {"path": "memory/notes.md", "content": "# notes\n"})
    assert (root / "memory" / "notes.md").read_text() == "# notes\n- one\n- two\n"
    shrunk = await runner.run(
        "memory_write",
        {"path": "memory/notes.md", "content": "# notes\n", "allow_shrink": True},
    )
    assert not shrunk["created"] and shrunk["changed"]
    assert (root / "memory" / "notes.md").read_text() == "# notes\n"
    with pytest.raises(PathRefused, match="not a memory file"):  # logs/ is never a note
        await runner.run("memory_write", {"path": "logs/x.md", "content": "no"})
    with pytest.raises(PathRefused, match="only Markdown notes"):
        await runner.run("memory_write", {"path": "notes/x.md", "content": "no"})


async def test_restore_brings_a_version_back_as_a_new_version(runner: JobRunner) -> None:
    root = runner.context.root
    await runner.run("memory_write", {"path": "memory/r.md", "content": "# r\n- first\n"})
    await runner.run("memory_edit", {"path": "memory/r.md", "old": "- first", "new": "- second"})
    history = await runner.run("memory_history", {"path": "memory/r.md"})
    assert [v["source"] for v in history["versions"]] == ["memory_write", "memory_edit"]
    done = await runner.call(memory_restore, RestoreParams(path="memory/r.md", version=1))
    assert (done.restored, done.version) == (1, 3)
    assert (root / "memory" / "r.md").read_text() == "# r\n- first\n"
    with pytest.raises(NotFound, match="no version 9"):
        await runner.run("memory_restore", {"path": "memory/r.md", "version": 9})
