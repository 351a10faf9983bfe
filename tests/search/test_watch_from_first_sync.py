"""The app watches the working dir from before its first index sync, so a file changed while
that sync runs is synced after it. It used to start watching only after the first sync: on a
loaded machine a conversation cleared with /clear stayed in the index
(tests/faults/test_cleared_conversation.py failed 3 of 6 runs with three busy loops running)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from remecli.config.settings import Settings
from remecli.conversation.file_memory import FileMemory
from remecli.search.sync import Syncer


async def test_a_file_deleted_while_the_first_sync_ends_leaves_the_index(
    tmp_path: Path, monkeypatch
) -> None:
    root = tmp_path / ".reme"
    (root / "memory").mkdir(parents=True, mode=0o700)
    doomed = root / "memory" / "doomed.md"
    doomed.write_text("# Doomed\n\nThe ferry code is kiwi4471.\n", encoding="utf-8")
    real_sync = Syncer.sync
    first = []

    def sync_then_delete(self, parts, *args, **kwargs):
        report = real_sync(self, parts, *args, **kwargs)
        if not first:  # the first sync has read it; the user deletes it before it returns
            first.append(True)
            doomed.unlink()
        return report

    monkeypatch.setattr(Syncer, "sync", sync_then_delete)
    settings = Settings(working_dir=str(root)).with_changes(
        {
            "llm.api_key": "sk-test",
            "memory.summarize": False,
            "memory.dream.auto": False,
            "search.embedding.backend": "none",
            "search.watch_debounce_ms": 50,
        }
    )
    memory = FileMemory(root, settings=settings)
    await memory.start(wait_for_index=True, background=False, watch=True)
    try:
        index = memory.index
        assert index is not None and first
        deadline = time.monotonic() + 10
        while "memory/doomed.md" in index.parts.store.files():
            assert time.monotonic() < deadline, "the deleted file is still indexed"
            await asyncio.sleep(0.1)
        assert await memory.memory_search("kiwi4471") == []
    finally:
        await memory.close()
