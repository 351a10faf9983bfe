"""`remecli memory history` and `remecli memory restore`: the memory_history and memory_restore
operations from the shell.

PATH is a memory file relative to the working dir (`MEMORY.md`, `memory/2025-01-31.md`) or a
path to it. A restore is itself a new version, so it can be undone the same way.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from remecli.config.locations import Locations
from remecli.config.settings import Settings

if TYPE_CHECKING:
    from remecli.ops import JobRunner


def memory_path(runner: JobRunner, raw: str) -> str:
    """`raw` as a working-dir-relative memory path (a path from the current folder works too)."""
    writer = runner.context.writer
    for candidate in (Path(raw).expanduser(), Path.cwd() / raw):
        if candidate.is_absolute() and candidate.exists():
            relative = writer.relative(os.path.realpath(candidate))
            if relative is not None:
                return relative
    return raw.strip().removeprefix("./")


def history(settings: Settings, locations: Locations, raw_path: str, *, as_json: bool) -> int:
    """Print the versions of one memory file (oldest first)."""
    return asyncio.run(_history(settings, raw_path, as_json))


def restore(settings: Settings, locations: Locations, raw_path: str, version: int) -> int:
    """Bring back one version of a memory file (itself a new version)."""
    return asyncio.run(_restore(settings, raw_path, version))


async def _history(settings: Settings, raw_path: str, as_json: bool) -> int:
    from remecli.ops import JobError, JobRunner
    from remecli.ops.history_jobs import HistoryParams

    runner = JobRunner.from_settings(settings)
    try:  # a bad value is an InvalidParams naming the job
        found = await runner.call(HistoryParams.parse(path=memory_path(runner, raw_path)))
    except JobError as exc:
        return _failed(exc)
    versions = found.versions
    if as_json:
        print(json.dumps([v.model_dump() for v in versions], ensure_ascii=False, indent=2))
    elif not versions:
        print(f"{found.path}: no versions yet")
    else:
        for v in versions:
            size = "deleted" if v.deleted else f"{v.bytes} bytes"
            print(f"{v.version:>4}  {v.time[:19].replace('T', ' ')} UTC  {size:>13}  {v.source}")
    return 0


async def _restore(settings: Settings, raw_path: str, version: int) -> int:
    from remecli.ops import JobError, JobRunner
    from remecli.ops.history_jobs import RestoreParams

    runner = JobRunner.from_settings(settings)
    path = memory_path(runner, raw_path)
    try:  # a bad value is an InvalidParams naming the job
        done = await runner.call(RestoreParams.parse(path=path, version=version))
    except JobError as exc:
        return _failed(exc)
    print(
        f"restored {done.path} to version {done.restored} "
        f"(now version {done.version}; the replaced content is kept)"
    )
    return 0


def _failed(exc: Exception | str) -> int:
    what = exc if isinstance(exc, str) else exc.args[0] if exc.args else exc
    print(f"remecli: {what}", file=sys.stderr)
    return 1
