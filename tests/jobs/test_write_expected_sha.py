"""`expected_sha256` on memory_write and memory_edit: the change is made only if the file still is
the version the caller read, checked while the file is locked (no write lands in between)."""

from __future__ import annotations

import asyncio
import hashlib
import threading

import pytest

from remecli.ops import JobRunner
from remecli.ops.errors import ChangedOnDisk


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


async def test_write_checks_the_version_and_answers_the_new_one(runner: JobRunner) -> None:
    root = runner.context.root
    target = root / "MEMORY.md"
    before = target.read_text()
    done = await runner.run(
        "memory_write",
        {"path": "MEMORY.md", "content": before + "- one more\n", "expected_sha256": sha(before)},
    )
    assert done["sha256"] == sha(target.read_text()) and done["changed"]
    with pytest.raises(ChangedOnDisk, match="changed since you read it") as refused:
        await runner.run(
            "memory_write",
            {"path": "MEMORY.md", "content": "# gone\n", "expected_sha256": sha(before)},
        )
    assert refused.value.current_sha256 == done["sha256"]
    assert target.read_text() == before + "- one more\n"
    with pytest.raises(ChangedOnDisk, match="already exists"):
        await runner.run(
            "memory_write", {"path": "MEMORY.md", "content": "x\n", "expected_sha256": "absent"}
        )
    made = await runner.run(
        "memory_write", {"path": "memory/new.md", "content": "# new\n", "expected_sha256": "absent"}
    )
    assert made["created"]
    with pytest.raises(ChangedOnDisk, match="changed since you read it"):
        await runner.run(
            "memory_edit",
            {"path": "memory/new.md", "old": "new", "new": "old", "expected_sha256": sha("x")},
        )
    edited = await runner.run(
        "memory_edit",
        {"path": "memory/new.md", "old": "new", "new": "old", "expected_sha256": sha("# new\n")},
    )
    assert edited == {"path": "memory/new.md", "replaced": 1, "line": 1, "sha256": sha("# old\n")}


async def test_a_write_landing_while_the_check_waits_is_never_overwritten(
    runner: JobRunner,
) -> None:
    """The check runs under the file's lock: a change made while another holder has the lock
    (after the caller read the file) is seen, not silently replaced."""
    target = runner.context.root / "MEMORY.md"
    seen = target.read_text()
    holding, release = threading.Event(), threading.Event()

    def other_writer() -> None:
        with runner.context.locks.hold(target):
            holding.set()
            release.wait(10)
            target.write_text(seen + "- written by an agent meanwhile\n")

    thread = threading.Thread(target=other_writer)
    thread.start()
    assert holding.wait(10)
    write = asyncio.create_task(
        runner.run(
            "memory_write",
            {
                "path": "MEMORY.md",
                "content": "# mine\n",
                "allow_shrink": True,
                "expected_sha256": sha(seen),
            },
        )
    )
    await asyncio.sleep(0.3)  # the write now waits for the lock
    release.set()
    with pytest.raises(ChangedOnDisk):
        await write
    thread.join()
    assert target.read_text().endswith("- written by an agent meanwhile\n")
