"""The memory runtime dreams in the background when a dream is due, shows it as a running
memory task, and never waits for it on exit."""

from __future__ import annotations

import asyncio
import datetime as dt

from remecli.conversation.file_memory import FileMemory
from remecli.notes.writer import MemoryWriter
from tests.dream.conftest import add_card, extraction, make_settings, receipt, unit
from tests.dream.test_dream_actions import NODE, NODE_TEXT


async def _until(predicate, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_a_due_dream_runs_in_the_background_at_start(fake_llm, tmp_path, working_dir):
    settings = make_settings(fake_llm, tmp_path)
    today = dt.date.today()
    card = add_card(working_dir, today, "atlas-db", "Atlas DB", "Chose PostgreSQL 16 for atlas.")
    fake_llm.add_text(extraction([unit("Atlas uses PostgreSQL", "wiki", "atlas: PG 16", card)]))
    fake_llm.add_tool_calls([("search_digest", {"query": "atlas postgres"})])
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": NODE_TEXT})])
    fake_llm.add_text(receipt("CREATE", NODE))
    counts: list[int] = []
    dreams: list = []
    memory = FileMemory(
        working_dir.root,
        settings=settings,
        search=False,
        on_summary_change=counts.append,
        on_dream_done=dreams.append,
    )
    await memory.start()  # returns at once: the dream runs in the background
    await _until(lambda: bool(dreams))
    assert dreams[0].status == "done", dreams[0]
    assert (working_dir.root / NODE).is_file()
    assert counts[0] == 1 and counts[-1] == 0  # shown as a running memory task, then done
    assert not memory.dreaming.running
    await memory.close()


async def test_no_background_dream_when_switched_off_or_nothing_is_new(
    fake_llm, tmp_path, working_dir
):
    settings = make_settings(fake_llm, tmp_path)
    memory = FileMemory(working_dir.root, settings=settings, search=False)
    await memory.start()  # no cards: nothing is due
    assert not memory.dreaming.running
    await memory.close()
    add_card(working_dir, dt.date.today(), "x", "X", "Something new.")
    settings = settings.with_changes({"memory.dream.auto": False})
    memory = FileMemory(working_dir.root, settings=settings, search=False)
    await memory.start()
    assert not memory.dreaming.running and fake_llm.chat_requests() == []
    await memory.close()


async def test_exit_never_waits_for_a_dream(fake_llm, tmp_path, working_dir):
    settings = make_settings(fake_llm, tmp_path)
    add_card(working_dir, dt.date.today(), "slow", "Slow", "A card while the model hangs.")
    fake_llm.add_text("{}", delay=60.0)  # the extraction call does not answer in time
    memory = FileMemory(working_dir.root, settings=settings, search=False)
    await memory.start()
    await _until(lambda: memory.dreaming.running and bool(fake_llm.chat_requests()))
    await asyncio.wait_for(memory.close(), timeout=10)
    assert not memory.dreaming.running
    assert not (working_dir.root / "digest").exists() or not any(
        (working_dir.root / "digest").rglob("*.md")
    )


async def test_personal_nodes_appear_in_memory_md_and_user_text_stays(
    fake_llm, tmp_path, working_dir
):
    from remecli.knowledge.memory_md.block import BLOCK_START, refresh_memory_md

    memory_md = working_dir.memory_md
    memory_md.write_text("# MEMORY\n\n- I wrote this myself.\n")
    node = working_dir.digest_dir / "personal" / "tabs.md"
    node.parent.mkdir(parents=True)
    node.write_text(
        "---\nname: Prefers tabs\ndescription: The user indents with tabs, never spaces.\n"
        "kind: personal\nstatus: active\n---\nUses tabs.\n\n## Sources\n- [[memory/x.md]]\n"
    )
    assert refresh_memory_md(working_dir, MemoryWriter(working_dir.root))
    text = memory_md.read_text()
    assert text.startswith("# MEMORY\n\n- I wrote this myself.\n")
    assert BLOCK_START in text
    assert "[[digest/personal/tabs.md|Prefers tabs]]: The user indents with tabs" in text
    assert not refresh_memory_md(
        working_dir, MemoryWriter(working_dir.root)
    )  # unchanged: not rewritten
    node.write_text(node.read_text().replace("status: active", "status: contradicted"))
    assert refresh_memory_md(working_dir, MemoryWriter(working_dir.root))
    assert memory_md.read_text() == "# MEMORY\n\n- I wrote this myself.\n"
