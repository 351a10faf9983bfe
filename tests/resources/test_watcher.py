"""The runtime follows resource/: catch-up at start, new and changed files while it runs, and a
deleted file's card reported to the `on_gone` hook (asked about, never removed by itself)."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Callable

from remecli.conversation.file_memory import FileMemory
from remecli.knowledge.resources.cards import OrphanCard
from tests.resources.conftest import answer, resource_cards, resource_settings


async def until(check: Callable[[], object], what: str, timeout: float = 30.0) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def test_the_runtime_watches_resources(tmp_path, fake_llm) -> None:
    root = tmp_path / ".reme"
    (root / "resource").mkdir(parents=True)
    (root / "resource" / "early.txt").write_text("Written before the start.\n", encoding="utf-8")
    fake_llm.add_text(answer("Early note", "A note that was there before the runtime started."))
    memory = FileMemory(root, settings=resource_settings(tmp_path, fake_llm.base_url, watch=True))
    gone: list[list[OrphanCard]] = []
    memory.resources.on_gone = gone.append
    await memory.start()
    try:
        await until(lambda: len(resource_cards(root)) == 1, "the catch-up card")

        fake_llm.add_text(answer("Late note", "A note dropped in while the runtime ran."))
        late = root / "resource" / "sub" / "late.md"
        late.parent.mkdir()
        late.write_text("# Late\n\nDropped in later.\n", encoding="utf-8")
        await until(lambda: len(resource_cards(root)) == 2, "the watched card")

        fake_llm.add_text(answer("Late note, revised", "The late note after its edit."))
        late.write_text("# Late\n\nDropped in later, then edited.\n", encoding="utf-8")
        await until(
            lambda: any(m["name"] == "Late note, revised" for _, m in resource_cards(root)),
            "the updated card",
        )
        assert len(resource_cards(root)) == 2 and len(fake_llm.chat_requests()) == 3

        (root / "resource" / "early.txt").unlink()
        await until(lambda: gone, "the on_gone hook")
        assert [o.resource for o in gone[0]] == ["resource/early.txt"]
        assert len(resource_cards(root)) == 2  # asked about, not removed
        removed = await asyncio.to_thread(  # what the TUI does once the user says yes
            memory.resources.prune, remove=True, cards={o.card for o in gone[0]}
        )
        assert [o.card for o in removed] == [o.card for o in gone[0]]
        assert [m["name"] for _, m in resource_cards(root)] == ["Late note, revised"]
        shutil.rmtree(late.parent)  # a whole folder deleted: its cards are asked about too
        await until(lambda: len(gone) > 1, "on_gone for the folder")
        assert [o.resource for o in gone[-1]] == ["resource/sub/late.md"]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the index's own watcher picks the card up
            hits = await memory.memory_search("revised late note", 5)
            if any("late-note" in hit["path"] for hit in hits):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the resource card never became searchable")
    finally:
        await memory.close()


async def test_a_fifo_dropped_into_resource_is_reported_not_opened(tmp_path, fake_llm) -> None:
    root = tmp_path / ".reme"
    (root / "resource").mkdir(parents=True)
    memory = FileMemory(root, settings=resource_settings(tmp_path, fake_llm.base_url, watch=True))
    await memory.start()
    try:
        fake_llm.add_text(answer("Live note", "Dropped in once the watcher was running."))
        (root / "resource" / "live.md").write_text("# Live\n\nThe watch is on.\n")
        await until(lambda: len(resource_cards(root)) == 1, "the watched card")
        os.mkfifo(root / "resource" / "pipe.md")
        watcher = memory._resource_watcher
        assert watcher is not None
        outcomes = await until(
            lambda: [o for o in watcher.outcomes if o.resource == "resource/pipe.md"],
            "the FIFO's outcome",
        )
        assert outcomes[0].status == "skipped" and "named pipe (FIFO)" in outcomes[0].message
        assert len(fake_llm.chat_requests()) == 1  # the live note's only
    finally:
        await memory.close()
