"""What Studio changes, each through the operations layer: save a note (with a check that the
file did not change on disk since the editor loaded it), its history, a diff of two versions,
and a restore.
"""

from __future__ import annotations

import asyncio
import difflib
from typing import Any

from remecli.notes.versions import VersionNotFound
from remecli.ops import JobError, JobRunner
from remecli.ops.errors import NotFound
from remecli.surfaces.studio.library import read_whole, sha256_text

CURRENT = "current"
MAX_DIFF_LINES = 5_000


class ChangedOnDisk(JobError, status=409, code="changed_on_disk"):
    """The file is not what the editor loaded: someone (the app, an agent, an editor) wrote it."""

    def __init__(self, message: str, current: str | None) -> None:
        super().__init__(message)
        self.current = current


async def _current(runner: JobRunner, path: str) -> str | None:
    try:
        text, _ = await read_whole(runner, path)
    except NotFound:
        return None
    return text


async def save(
    runner: JobRunner, path: str, content: str, base_sha256: str | None
) -> dict[str, Any]:
    """Write `content` to `path` with memory_write if the file still is what the editor loaded
    (`base_sha256`; None: a new file that must not exist yet); else ChangedOnDisk with the
    file's content now. The check and the write are two operations: a write landing between
    them (milliseconds) is overwritten, and stays in the history."""
    current = await _current(runner, path)
    if base_sha256 is None and current is not None:
        raise ChangedOnDisk(f"{path} already exists; open it and edit it instead", current)
    if base_sha256 is not None:
        if current is None:
            raise ChangedOnDisk(
                f"{path} was deleted on disk since you opened it; save again to create it anew",
                None,
            )
        if sha256_text(current) != base_sha256:
            raise ChangedOnDisk(
                f"{path} changed on disk since you opened it. Compare both versions below, then "
                "keep yours (overwrite) or take the one on disk",
                current,
            )
    written = await runner.run(
        "memory_write", {"path": path, "content": content, "allow_shrink": True}
    )
    now = await _current(runner, path)
    return {**written, "sha256": sha256_text(now or "")}


async def history(runner: JobRunner, path: str) -> dict[str, Any]:
    """memory_history, newest first."""
    found = await runner.run("memory_history", {"path": path})
    return {"path": found["path"], "versions": list(reversed(found["versions"]))}


def _version_bytes(runner: JobRunner, path: str, version: int) -> bytes:
    confined = runner.context.confine(path)
    writer = runner.context.writer
    relative = writer.relative(confined.path)
    if relative is None:
        raise NotFound(f"{path} has no history; only memory files are versioned")
    try:
        return writer.store.content(relative, version)
    except VersionNotFound as exc:
        raise NotFound(str(exc)) from None


async def version_text(runner: JobRunner, path: str, version: int | str) -> str:
    """The content of `version` of `path` (`current`: the file now, read with memory_read).

    Old versions come from the history the memory writer keeps (no job reads one yet)."""
    if version == CURRENT:
        return (await _current(runner, path)) or ""
    data = await asyncio.to_thread(_version_bytes, runner, path, int(version))
    return data.decode("utf-8", errors="replace")


async def diff(runner: JobRunner, path: str, old: int | str, new: int | str) -> dict[str, Any]:
    """The lines that differ between two versions of `path`, as `{"kind", "text"}` rows."""
    before, after = await asyncio.gather(
        version_text(runner, path, old), version_text(runner, path, new)
    )
    rows: list[dict[str, str]] = []
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), f"version {old}", f"version {new}", lineterm=""
    )
    for line in lines:
        if line.startswith(("---", "+++")):
            continue
        kind = {"@": "hunk", "+": "add", "-": "del"}.get(line[:1], "same")
        rows.append({"kind": kind, "text": line if kind == "hunk" else line[1:]})
        if len(rows) >= MAX_DIFF_LINES:
            rows.append({"kind": "hunk", "text": "… (diff cut here)"})
            break
    return {"path": path, "old": str(old), "new": str(new), "rows": rows}


async def restore(runner: JobRunner, path: str, version: int) -> dict[str, Any]:
    """memory_restore: bring `version` back (itself a new version)."""
    return await runner.run("memory_restore", {"path": path, "version": version})
