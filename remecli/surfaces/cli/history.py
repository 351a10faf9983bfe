"""`remecli memory history` and `remecli memory restore`.

PATH is a memory file relative to the working dir (`MEMORY.md`, `memory/2025-01-31.md`) or a
path to it. A restore is itself a new version, so it can be undone the same way.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from remecli.config.locations import Locations
from remecli.config.settings import Settings
from remecli.notes.versions import VersionNotFound
from remecli.notes.writer import MemoryWriteError, MemoryWriter


def memory_path(writer: MemoryWriter, raw: str) -> str:
    """`raw` as a working-dir-relative memory path (a path from the current folder works too)."""
    for candidate in (Path(raw).expanduser(), Path.cwd() / raw):
        if candidate.is_absolute() and candidate.exists():
            relative = writer.relative(os.path.realpath(candidate))
            if relative is not None:
                return relative
    return raw.strip().removeprefix("./")


def history(settings: Settings, locations: Locations, raw_path: str, *, as_json: bool) -> int:
    """Print the versions of one memory file (oldest first)."""
    writer = MemoryWriter.from_settings(locations.root, settings.memory)
    path = memory_path(writer, raw_path)
    try:
        versions = writer.history(path)
    except (MemoryWriteError, VersionNotFound) as exc:
        return _failed(exc)
    if as_json:
        print(json.dumps([v.to_dict() for v in versions], ensure_ascii=False, indent=2))
    elif not versions:
        print(f"{path}: no versions yet")
    else:
        for v in versions:
            size = "deleted" if v.deleted else f"{v.bytes} bytes"
            print(f"{v.version:>4}  {v.time[:19].replace('T', ' ')} UTC  {size:>13}  {v.source}")
    return 0


def restore(settings: Settings, locations: Locations, raw_path: str, version: int) -> int:
    """Bring back one version of a memory file (itself a new version)."""
    writer = MemoryWriter.from_settings(locations.root, settings.memory)
    path = memory_path(writer, raw_path)
    try:
        result = writer.restore(path, version)
    except (MemoryWriteError, VersionNotFound) as exc:
        return _failed(exc)
    print(
        f"restored {result.relative} to version {version} "
        f"(now version {result.version}; the replaced content is kept)"
    )
    return 0


def _failed(exc: Exception) -> int:
    print(f"remecli: {exc.args[0] if exc.args else exc}", file=sys.stderr)
    return 1
