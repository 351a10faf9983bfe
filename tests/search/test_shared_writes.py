"""Processes sharing one index do not queue for nothing: a sync of files another process has
indexed already takes no writer lock (every process's watcher sees every write; before, each of
them waited behind the writer's commits to find nothing to do); the files a process wrote
while it waited for the lock are read by one sync, one commit (a card and its day page); and a
written file is announced, so the next writer of any process reads it in its own commit (writers
queued behind each other then find their files indexed and commit nothing).

The writer lock is held by a real second process while the index works."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from remecli.search import MemoryIndex, SearchRequest
from remecli.search.types import SyncReport
from tests.search.helpers import settings

HOLD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from remecli.search.sharing import SharedIndex
    with SharedIndex(Path(sys.argv[1])).writer():
        print("held", flush=True)
        sys.stdin.read()
    """
)


@contextmanager
def writer_lock_held_elsewhere(index: MemoryIndex) -> Iterator[None]:
    """Another process holds the index's writer lock (as during its commit) for the block."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(index.folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(60)


def in_thread(index: MemoryIndex, paths: set[str]) -> tuple[threading.Thread, list[SyncReport]]:
    reports: list[SyncReport] = []
    thread = threading.Thread(target=lambda: reports.append(index.sync_blocking(paths=paths)))
    thread.start()
    return thread, reports


def test_a_file_another_process_indexed_is_followed_without_the_lock(working_dir: Path) -> None:
    first = MemoryIndex.open(working_dir, settings())
    second = MemoryIndex.open(working_dir, settings())
    try:
        first.sync_blocking()
        second.sync_blocking()
        card = "memory/2025-01-03.md"
        (working_dir / card).write_text("# 2025-01-03\n\nThe gate code is 5120.\n")
        first.sync_blocking(paths={card})  # the writing process indexes its card
        with writer_lock_held_elsewhere(first):
            thread, reports = in_thread(second, {card})  # the other one's watcher
            thread.join(20)
            assert not thread.is_alive(), "a sync with nothing to read waited for the lock"
            assert reports[0].files_changed == 0
            assert second.search_blocking(SearchRequest(query="gate code"))[0].path == card
    finally:
        first.close()
        second.close()


def test_files_written_while_waiting_for_the_lock_share_one_sync(working_dir: Path) -> None:
    writer = MemoryIndex.open(working_dir, settings())
    reader = MemoryIndex.open(working_dir, settings())
    try:
        writer.sync_blocking()
        card, day = "memory/2025-01-03/gate.md", "memory/2025-01-03.md"
        (working_dir / "memory" / "2025-01-03").mkdir()
        (working_dir / card).write_text("# Gate\n\nThe gate code is 5120.\n")
        (working_dir / day).write_text("# 2025-01-03\n\n- [[gate]]: the gate code\n")
        with writer_lock_held_elsewhere(writer):
            writer.note_written(card)
            thread, reports = in_thread(writer, set())  # the card's sync waits for the lock
            time.sleep(0.5)
            writer.note_written(day)  # the day page is written meanwhile
            assert thread.is_alive()
        thread.join(60)
        assert reports[0].files_changed == 2  # both read by the sync that waited
        assert writer.sync_blocking(paths=set()).files_changed == 0  # the day page's: nothing
        assert {hit.path for hit in reader.search_blocking(SearchRequest(query="gate code"))} == {
            card,
            day,
        }
    finally:
        writer.close()
        reader.close()


def test_the_next_writer_of_any_process_reads_an_announced_file(working_dir: Path) -> None:
    wrote = MemoryIndex.open(working_dir, settings())
    next_writer = MemoryIndex.open(working_dir, settings())
    try:
        wrote.sync_blocking()
        card = "memory/2025-01-03.md"
        (working_dir / card).write_text("# 2025-01-03\n\nThe gate code is 5120.\n")
        wrote.note_written(card)  # written; its own sync has not got the lock yet
        assert next_writer.sync_blocking(paths=set()).files_changed == 1  # read it in its commit
        marker = wrote.shared.read()
        assert wrote.sync_blocking(paths=set()).files_changed == 0  # nothing left to commit
        assert wrote.shared.read() == marker
        assert wrote.search_blocking(SearchRequest(query="gate code"))[0].path == card
        assert not list((wrote.folder / "written").iterdir())  # announcements are taken once
    finally:
        wrote.close()
        next_writer.close()
