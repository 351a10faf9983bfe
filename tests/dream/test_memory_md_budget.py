"""MEMORY.md kept within its prompt budget by consolidation (`knowledge/memory_md/budget`):
its last sections move word for word into digest nodes, each leaving a pointer; nothing lost."""

from __future__ import annotations

import datetime as dt

from remecli.conversation.file_memory import FileMemory
from remecli.knowledge.memory_md.block import BLOCK_END, BLOCK_START
from remecli.knowledge.memory_md.budget import consolidate
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter
from tests.dream.conftest import make_settings

DAY = dt.date(2026, 3, 2)


def _memory_md(sections: int = 4, lines: int = 30) -> str:
    parts = ["# MEMORY", "", "- I am Ada; I prefer short answers.", ""]
    parts += [BLOCK_START, "## What the digest knows about you", "", "- [[x]]", BLOCK_END, ""]
    for number in range(sections):
        parts.append(f"## Topic {number}")
        parts += [f"- fact {number}.{k}" for k in range(lines)]
        parts.append("")
    return "\n".join(parts)


def _count(text: str) -> int:
    return len(text.split())


def test_sections_move_word_for_word_and_leave_a_pointer(working_dir: WorkingDir) -> None:
    original = _memory_md()
    working_dir.memory_md.write_text(original)
    writer = MemoryWriter(working_dir.root)
    moved = consolidate(working_dir, writer, max_lines=80, max_tokens=0, count=_count, today=DAY)
    assert moved == [f"digest/personal/memory-topic-{n}.md" for n in (3, 2, 1)]
    kept = working_dir.memory_md.read_text()
    assert kept.count("\n") <= 64  # 80% of the budget
    assert kept.startswith("# MEMORY\n\n- I am Ada; I prefer short answers.\n")
    assert BLOCK_START in kept and "## Topic 0\n- fact 0.0" in kept
    assert (
        "## Topic 3\n- [[digest/personal/memory-topic-3.md|Topic 3]]: 30 lines moved there on "
        "2026-03-02"
    ) in kept
    everything = kept + "".join((working_dir.root / rel).read_text() for rel in moved)
    for line in original.splitlines():
        if line.startswith("- fact"):
            assert line in everything.splitlines(), line  # nothing lost
    node = (working_dir.root / moved[0]).read_text()
    assert "moved_from: MEMORY.md" in node and node.rstrip().endswith("on 2026-03-02.")
    assert [v.version for v in writer.history(working_dir.memory_md)][-1] >= 1
    # within budget now: nothing more moves
    assert (
        consolidate(working_dir, writer, max_lines=80, max_tokens=0, count=_count, today=DAY) == []
    )


def test_a_memory_md_within_budget_is_left_alone(working_dir: WorkingDir) -> None:
    working_dir.memory_md.write_text(_memory_md(sections=1))
    writer = MemoryWriter(working_dir.root)
    assert (
        consolidate(working_dir, writer, max_lines=200, max_tokens=4000, count=_count, today=DAY)
        == []
    )
    assert not (working_dir.digest_dir / "personal").exists()


def test_tokens_count_too(working_dir: WorkingDir) -> None:
    working_dir.memory_md.write_text(_memory_md(sections=3, lines=10))
    writer = MemoryWriter(working_dir.root)
    moved = consolidate(working_dir, writer, max_lines=1000, max_tokens=60, count=_count, today=DAY)
    assert moved and _count(working_dir.memory_md.read_text()) > 0


def _consolidate_while(working_dir: WorkingDir, edit) -> list[str]:
    """Consolidate while `edit(text)` changes MEMORY.md once, as another writer would."""
    working_dir.memory_md.write_text(_memory_md())
    done: list[bool] = []

    def count_during_an_edit(text: str) -> int:
        if not done:
            done.append(True)
            working_dir.memory_md.write_text(edit(working_dir.memory_md.read_text()))
        return 10_000

    return consolidate(
        working_dir,
        MemoryWriter(working_dir.root),
        max_lines=0,
        max_tokens=100,
        count=count_during_an_edit,
        today=DAY,
    )


def test_a_memory_md_rewritten_meanwhile_is_not_overwritten(working_dir: WorkingDir) -> None:
    moved = _consolidate_while(working_dir, lambda text: text.replace("Ada", "Ada L."))
    assert moved == []
    assert "I am Ada L.;" in working_dir.memory_md.read_text()
    assert "- fact 3.29" in working_dir.memory_md.read_text()
    folder = working_dir.digest_dir / "personal"
    assert not folder.exists() or not list(folder.glob("*.md"))  # the nodes were taken back


def test_lines_appended_meanwhile_are_kept(working_dir: WorkingDir) -> None:
    moved = _consolidate_while(working_dir, lambda text: text + "- added by hand\n")
    assert moved
    assert working_dir.memory_md.read_text().endswith("- added by hand\n")


async def test_a_dream_keeps_memory_md_within_budget(fake_llm, tmp_path, working_dir) -> None:
    settings = make_settings(fake_llm, tmp_path).with_changes({"memory.memory_md_head_lines": 60})
    working_dir.memory_md.write_text(_memory_md())
    memory = FileMemory(working_dir.root, settings=settings, search=False)
    await memory.start()
    try:
        result = await memory.dream()
    finally:
        await memory.close()
    assert result.status == "nothing", result
    assert "MEMORY.md was over its prompt budget" in result.message
    assert "digest/personal/memory-topic-3.md" in result.message
    assert working_dir.memory_md.read_text().count("\n") <= 48
