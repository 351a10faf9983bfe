"""Checkpoints over real files: write/edit/bash changes are kept per reply, shown, undone."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from remecli.tools.bash import bash
from remecli.tools.checkpoints import Checkpoints, change_kind, reply_diff, undo_reply
from remecli.tools.checkpoints.store import content_hash, file_digest
from remecli.tools.context import ToolContext
from remecli.tools.edit import edit
from remecli.tools.write import write
from tests.tools.conftest import make_ctx


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def make(workspace: Path, session: str = "s1", **kw) -> tuple[Checkpoints, ToolContext]:
    working = workspace / ".reme"
    checkpoints = Checkpoints(
        workspace, working / "checkpoints", lambda: session, skip=(working,), **kw
    )
    ctx = make_ctx(workspace)  # the tests' composition root for a ToolContext
    ctx.checkpoints = checkpoints
    return checkpoints, ctx


async def test_write_and_edit_are_kept_and_undone(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("one\ntwo\n")
    checkpoints, ctx = make(workspace)
    checkpoints.begin_reply("change the notes")
    await edit(ctx, "notes.txt", "two", "TWO")
    await write(ctx, "sub/new.txt", "fresh\n")
    [record] = checkpoints.store.replies("s1")
    assert record.number == 1 and record.message == "change the notes"
    assert {n: change_kind(c) for n, c in record.changes.items()} == {
        "notes.txt": "changed",
        "sub/new.txt": "created",
    }
    diff = reply_diff(checkpoints.store, record)
    assert "-two" in diff and "+TWO" in diff and "+++ b/sub/new.txt" in diff
    outcome = undo_reply(checkpoints.store, record, checkpoints.workspace)
    assert outcome.restored == ["notes.txt"] and outcome.deleted == ["sub/new.txt"]
    assert (workspace / "notes.txt").read_text() == "one\ntwo\n"
    assert not (workspace / "sub/new.txt").exists()
    assert checkpoints.store.replies("s1")[0].undone


async def test_a_reply_that_changes_nothing_leaves_no_record(workspace: Path) -> None:
    (workspace / "a.txt").write_text("same")
    checkpoints, ctx = make(workspace)
    checkpoints.begin_reply("noop")
    await write(ctx, "a.txt", "same")
    await edit(ctx, "a.txt", "missing", "x")  # refused: nothing changes
    assert checkpoints.store.replies("s1") == []


async def test_undo_refuses_when_the_file_changed_since(workspace: Path) -> None:
    (workspace / "a.txt").write_text("v1")
    checkpoints, ctx = make(workspace)
    checkpoints.begin_reply("first")
    await write(ctx, "a.txt", "v2")
    (workspace / "a.txt").write_text("v3 by the user")
    [record] = checkpoints.store.replies("s1")
    outcome = undo_reply(checkpoints.store, record, checkpoints.workspace)
    assert outcome.refused == ["a.txt changed again since reply 1"]
    assert (workspace / "a.txt").read_text() == "v3 by the user"
    assert not checkpoints.store.replies("s1")[0].undone


async def test_bash_changes_are_found_by_scanning(workspace: Path) -> None:
    (workspace / "keep.txt").write_text("keep")
    (workspace / "gone.txt").write_text("precious")
    (workspace / "grow.txt").write_text("a\n")
    (workspace / ".git").mkdir()
    checkpoints, ctx = make(workspace)
    checkpoints.begin_reply("shell work")
    command = "rm gone.txt && echo b >> grow.txt && echo hi > made.txt && echo x > .git/HEAD"
    await bash(ctx, command)
    [record] = checkpoints.store.replies("s1")
    kinds = {n: change_kind(c) for n, c in record.changes.items()}
    assert kinds == {"gone.txt": "deleted", "grow.txt": "changed", "made.txt": "created"}
    assert "+b" in reply_diff(checkpoints.store, record)
    outcome = undo_reply(checkpoints.store, record, checkpoints.workspace)
    assert sorted(outcome.restored) == ["gone.txt", "grow.txt"] and outcome.deleted == ["made.txt"]
    assert (workspace / "gone.txt").read_text() == "precious"
    assert (workspace / "grow.txt").read_text() == "a\n"
    assert not (workspace / "made.txt").exists()


async def test_replies_are_numbered_and_the_baseline_survives_a_restart(workspace: Path) -> None:
    (workspace / "f.txt").write_text("0")
    checkpoints, ctx = make(workspace)
    checkpoints.begin_reply("one")
    await bash(ctx, "echo 1 > f.txt")
    checkpoints.begin_reply("two")
    await bash(ctx, "echo 2 > f.txt")
    later, ctx2 = make(workspace)  # a new process: the baseline is read back from disk
    later.begin_reply("three")
    await bash(ctx2, "echo 3 > f.txt")
    records = later.store.replies("s1")
    assert [r.number for r in records] == [1, 2, 3]
    assert "-2" in reply_diff(later.store, records[2]) and "+3" in reply_diff(
        later.store, records[2]
    )
    assert undo_reply(later.store, records[0], later.workspace).refused  # f.txt changed since
    undo_reply(later.store, records[2], later.workspace)
    assert (workspace / "f.txt").read_text() == "2\n"


async def test_the_working_dir_and_files_outside_the_workspace_are_not_tracked(
    workspace: Path, tmp_path: Path
) -> None:
    checkpoints, ctx = make(workspace)
    checkpoints.begin_reply("elsewhere")
    await write(ctx, str(tmp_path / "outside.txt"), "x")
    await bash(ctx, "mkdir -p .reme/memory && echo m > .reme/memory/x.md")
    assert checkpoints.store.replies("s1") == []


async def test_a_tree_over_the_file_cap_is_not_tracked_and_says_so(workspace: Path) -> None:
    for i in range(5):
        (workspace / f"{i}.txt").write_text(str(i))
    checkpoints, ctx = make(workspace, max_files=3)
    checkpoints.begin_reply("big tree")
    await bash(ctx, "echo changed > 0.txt")
    [record] = checkpoints.store.replies("s1")
    assert record.changes == {} and "more than 3 files" in record.untracked


def test_objects_are_content_addressed_and_kept_once(workspace: Path) -> None:
    checkpoints, _ = make(workspace)
    first = checkpoints.store.put_bytes(b"same")
    second = checkpoints.store.put_bytes(b"same")
    assert first == second and checkpoints.store.get(first) == b"same"
    objects = [p for p in (workspace / ".reme/checkpoints/objects").rglob("*") if p.is_file()]
    assert len(objects) == 1
    assert os.stat(objects[0]).st_mode & 0o077 == 0  # private: the user's files


async def test_old_conversations_and_unused_objects_are_pruned(workspace: Path) -> None:
    (workspace / "a.txt").write_text("v1")
    old, ctx = make(workspace, session="old")
    old.begin_reply("long ago")
    await write(ctx, "a.txt", "v2")
    month_ago = time.time() - 30 * 86400
    root = workspace / ".reme" / "checkpoints"
    for path in root.rglob("*"):
        os.utime(path, (month_ago, month_ago))
    (workspace / "b.txt").write_text("kept by the baseline")
    current, ctx = make(workspace, session="new")
    current.begin_reply("today")
    await bash(ctx, "echo v3 > a.txt")  # the first change prunes, then scans
    assert not (root / "old").exists() and (root / "new").is_dir()
    [record] = current.store.replies("new")
    assert undo_reply(current.store, record, current.workspace).restored == ["a.txt"]
    assert (workspace / "a.txt").read_text() == "v2"
    assert current.store.has(file_digest(workspace / "b.txt") or "")
    assert not current.store.has(content_hash(b"v1"))  # only the pruned conversation used it


async def test_a_file_over_the_edit_limit_is_refused_before_any_checkpoint(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37.2: the /undo checkpoint hashed (and, under a memory limit, failed on) a 1 GB log
    before `edit` refused it over tools.edit_max_bytes; now the size is checked first."""
    from remecli.tools.checkpoints import tracker

    log = workspace / "app.log"
    with log.open("wb") as handle:
        handle.write(b"".join(b"line %d of the log\n" % n for n in range(300)))
        handle.truncate(1 << 30)  # a hole: a gigabyte that takes no disk
    looked_at: list[Path] = []
    monkeypatch.setattr(tracker, "file_digest", lambda path: looked_at.append(path))
    checkpoints, ctx = make(workspace)
    checkpoints.begin_reply("fix line 5")
    result = await edit(ctx, "app.log", "line 5 of the log", "line five")
    assert result.is_error
    assert f"{log} is 1.0 GB, over the 19.1 MB `edit` limit" in result.text
    assert looked_at == []  # the checkpoint never read it
    assert log.stat().st_size == 1 << 30
