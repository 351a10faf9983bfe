"""`remecli memory history PATH [--json]` and `remecli memory restore PATH VERSION`.

PATH is a memory file relative to the working dir (`MEMORY.md`, `memory/2025-01-31.md`) or a
path to it. A restore is itself a new version, so it can be undone the same way.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from remecli.notes.writer import MemoryWriter
from remecli.surfaces.cli.start import UsageError, start_on_working_dir

_SETTING = re.compile(r"^[A-Za-z_][\w.]*=")
USAGE = (
    "usage: remecli memory history PATH [--json] [config=NAME] [key=value ...]\n"
    "       remecli memory restore PATH VERSION [config=NAME] [key=value ...]"
)


def parse_args(argv: list[str]) -> tuple[dict, list[str]]:
    """(options: action, path, version, json; settings: key=value arguments)."""
    if not argv or argv[0] in ("-h", "--help"):
        raise UsageError("")
    action, rest = argv[0], argv[1:]
    if action not in ("history", "restore"):
        raise UsageError(f"unknown memory command {action!r}: use history or restore")
    options: dict = {"action": action, "path": None, "version": None, "json": False}
    settings: list[str] = []
    positional: list[str] = []
    for item in rest:
        if item == "--json":
            options["json"] = True
        elif item in ("-h", "--help"):
            raise UsageError("")
        elif item.startswith("--"):
            raise UsageError(f"unknown option {item}")
        elif _SETTING.match(item) and not item.endswith(".md"):
            settings.append(item)
        else:
            positional.append(item)
    wanted = 1 if action == "history" else 2
    if len(positional) != wanted:
        raise UsageError(
            f"remecli memory {action} needs {'PATH' if wanted == 1 else 'PATH VERSION'}"
        )
    options["path"] = positional[0]
    if action == "restore":
        try:
            options["version"] = int(positional[1])
        except ValueError:
            raise UsageError(f"VERSION must be a number, got {positional[1]!r}") from None
    return options, settings


def memory_path(writer: MemoryWriter, raw: str) -> str:
    """`raw` as a working-dir-relative memory path (a path from the current folder works too)."""
    for candidate in (Path(raw).expanduser(), Path.cwd() / raw):
        if candidate.is_absolute() and candidate.exists():
            relative = writer.relative(os.path.realpath(candidate))
            if relative is not None:
                return relative
    return raw.strip().removeprefix("./")


def run(argv: list[str]) -> int:
    """Run `remecli memory …` (the memory_history / memory_restore operations); exit code."""
    started = start_on_working_dir(lambda: parse_args(argv), USAGE)
    if isinstance(started, int):
        return started
    options, settings, _locations = started
    return asyncio.run(_run(options, settings))


async def _run(options: dict, settings: Any) -> int:
    from remecli.ops import JobError, JobRunner
    from remecli.ops.history_jobs import (
        HistoryParams,
        RestoreParams,
        memory_history,
        memory_restore,
    )

    runner = JobRunner.from_settings(settings)
    path = memory_path(runner.context.writer, options["path"])
    try:
        if options["action"] == "restore":
            done = await runner.call(
                memory_restore, RestoreParams(path=path, version=options["version"])
            )
            print(
                f"restored {done.path} to version {done.restored} "
                f"(now version {done.version}; the replaced content is kept)"
            )
            return 0
        history = await runner.call(memory_history, HistoryParams(path=path))
    except JobError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 1
    versions = history.versions
    if options["json"]:
        print(json.dumps([v.model_dump() for v in versions], ensure_ascii=False, indent=2))
    elif not versions:
        print(f"{history.path}: no versions yet")
    else:
        for v in versions:
            size = "deleted" if v.deleted else f"{v.bytes} bytes"
            print(f"{v.version:>4}  {v.time[:19].replace('T', ' ')} UTC  {size:>13}  {v.source}")
    return 0
