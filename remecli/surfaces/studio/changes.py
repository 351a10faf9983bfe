"""What Studio changes, each through the operations layer: save a note (refused when the file
changed on disk since the editor loaded it), its history, a diff of two versions, a restore.
"""

from __future__ import annotations

import asyncio
import difflib
import itertools
from typing import TYPE_CHECKING, Any, TypedDict

from remecli.ops import JobRunner
from remecli.ops.errors import ChangedOnDisk, NotFound
from remecli.ops.file_jobs import ABSENT, WriteParams
from remecli.ops.history_jobs import HistoryParams, HistoryResult, RestoreParams, VersionParams
from remecli.ops.note_jobs import DeleteParams, RenameParams
from remecli.surfaces.studio.library import read_whole, sha256_text

if TYPE_CHECKING:
    from pydantic.config import JsonDict

CURRENT = "current"
MAX_DIFF_LINES = 5_000


class MarkedLine(TypedDict):
    text: str
    changed: bool  # the other side differs here


class MarkedSides(TypedDict):
    mine: list[MarkedLine]
    theirs: list[MarkedLine]


class DiffRow(TypedDict):
    kind: str  # hunk, add, del or same
    text: str


class Diff(TypedDict):
    path: str
    old: str
    new: str
    rows: list[DiffRow]


async def _current(runner: JobRunner, path: str) -> str | None:
    try:
        text, _ = await read_whole(runner, path)
    except NotFound:
        return None
    return text


def _conflict_message(path: str, base_sha256: str | None, current: str | None) -> str:
    if base_sha256 is None:
        return f"{path} already exists; open it and edit it instead"
    if current is None:
        return f"{path} was deleted on disk since you opened it; save again to create it anew"
    return (
        f"{path} changed on disk since you opened it. Compare both versions below, then keep "
        "yours (overwrite) or take the one on disk"
    )


async def save(
    runner: JobRunner, path: str, content: str, base_sha256: str | None
) -> dict[str, Any]:
    """Write `content` to `path` with memory_write, only if the file still is the version the
    editor loaded (`base_sha256`; None: a new file that must not exist yet). The job checks it
    while the file is locked; on a refusal the answer carries the file as it is now, so the
    page can show both versions."""
    try:
        params = WriteParams.parse(
            path=path, content=content, allow_shrink=True, expected_sha256=base_sha256 or ABSENT
        )
        return await runner.answer(params)
    except ChangedOnDisk:
        current = await _current(runner, path)
        return {
            "conflict": True,
            "error": _conflict_message(path, base_sha256, current),
            "current": current,
            "current_sha256": None if current is None else sha256_text(current),
            **await asyncio.to_thread(marked_sides, content, current or ""),
        }


def marked_sides(mine: str, theirs: str) -> MarkedSides:
    """`{"mine": [...], "theirs": [...]}`: each text's lines as `{"text", "changed"}`, changed
    where the other text differs (what the conflict view marks on each side)."""
    left, right = mine.splitlines(), theirs.splitlines()
    mine_rows = [MarkedLine(text=line, changed=False) for line in left]
    theirs_rows = [MarkedLine(text=line, changed=False) for line in right]
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for row in mine_rows[i1:i2]:
            row["changed"] = True
        for row in theirs_rows[j1:j2]:
            row["changed"] = True
    return MarkedSides(mine=mine_rows, theirs=theirs_rows)


async def history(runner: JobRunner, path: str) -> HistoryResult:
    """memory_history, newest first."""
    found = await runner.call(HistoryParams.parse(path=path))
    return HistoryResult(path=found.path, versions=found.versions[::-1])


async def version_text(runner: JobRunner, path: str, version: int | str) -> str:
    """The content of `version` of `path` (`current`: the file now, read with memory_read).

    Old versions come from the history the memory writer keeps (memory_version)."""
    if version == CURRENT:
        return (await _current(runner, path)) or ""
    return (await runner.call(VersionParams.parse(path=path, version=int(version)))).content


async def diff(runner: JobRunner, path: str, old: int | str, new: int | str) -> Diff:
    """The lines that differ between two versions of `path`, as `{"kind", "text"}` rows."""
    before, after = await asyncio.gather(
        version_text(runner, path, old), version_text(runner, path, new)
    )
    rows: list[DiffRow] = []
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="")
    for line in itertools.islice(lines, 2, None):  # past the `---`/`+++` file names only
        kind = {"@": "hunk", "+": "add", "-": "del"}.get(line[:1], "same")
        rows.append(DiffRow(kind=kind, text=line if kind == "hunk" else line[1:]))
        if len(rows) >= MAX_DIFF_LINES:
            rows.append(DiffRow(kind="hunk", text="… (diff cut here)"))
            break
    return Diff(path=path, old=str(old), new=str(new), rows=rows)


async def restore(runner: JobRunner, path: str, version: int) -> JsonDict:
    """memory_restore: bring `version` back (itself a new version)."""
    return await runner.answer(RestoreParams.parse(path=path, version=version))


async def rename(runner: JobRunner, path: str, new_path: str) -> JsonDict:
    """memory_rename: move the note and rewrite every link to it (each file versioned)."""
    return await runner.answer(RenameParams.parse(path=path, new_path=new_path))


async def delete(runner: JobRunner, path: str) -> JsonDict:
    """memory_delete: remove the note (kept in its history) and list what now links nowhere."""
    return await runner.answer(DeleteParams.parse(path=path))
