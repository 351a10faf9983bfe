"""`remecli links`: a note's links both ways, and rename, delete, dangling links, rebuild —
the memory_links, memory_rename, memory_delete and memory_dangling operations from the shell.

PATH is a note relative to the working dir (`memory/2025-01-31.md`), a path to it, or a note
name (`"Deploy steps"`). `--rename NEW` moves the note and retargets every link to it;
`--delete` removes it (kept in its history) and lists what still links there; `--dangling`
lists every link that points nowhere; `--rebuild` parses every note again.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from remecli.config.locations import Locations
from remecli.config.settings import Settings
from remecli.ops import JobError, JobRunner
from remecli.ops.errors import NotFound
from remecli.ops.knowledge_jobs import MAX_DEPTH, LinksParams, LinksResult
from remecli.ops.note_jobs import DanglingParams, DeleteParams, RebuildLinksParams, RenameParams
from remecli.surfaces.cli.job import one_shot

Direction = Literal["in", "out", "both"]
NEIGHBOURS = 200  # the memory_links operation's most neighbours per direction


@dataclass(frozen=True)
class LinksRequest:
    """What `remecli links` was asked: one note's neighbours, or a whole-graph action."""

    path: str | None = None
    as_json: bool = False
    depth: int = 1
    direction: Direction = "both"
    rename: str | None = None
    delete: bool = False
    dangling: bool = False
    rebuild: bool = False

    def __post_init__(self) -> None:
        """Raises ValueError (a usage error) for a request that names nothing to act on."""
        if self.rename == "":
            raise ValueError("--rename needs the new path")
        if not self.dangling and not self.rebuild and not self.path:
            raise ValueError("remecli links needs a PATH (or --dangling)")

    @property
    def note(self) -> str:
        """The PATH given (checked present unless --dangling or --rebuild)."""
        return self.path or ""


def note_path(root: Path, raw: str) -> str:
    """`raw` relative to the working dir when it is a path to a file in it (from the current
    folder, or absolute); else as given (a working-dir path or a note name, for the operation)."""
    candidate = Path(raw).expanduser()
    here = candidate if candidate.is_absolute() else Path.cwd() / candidate
    if candidate.is_absolute() or here.is_file():
        real, base = Path(os.path.realpath(here)), Path(os.path.realpath(root))
        if real.is_relative_to(base) and real != base:
            return real.relative_to(base).as_posix()
    return raw


def _plain(result: LinksResult) -> str:
    lines = [f"{result.path}  {result.name}" + _described(result.description)]
    for key, arrow, notes in (("out", "→", result.out), ("in", "←", result.in_)):
        lines.append(f"{key}:" if notes else f"{key}: (none)")
        for item in notes:
            indent = "  " * item.depth
            lines.append(f"{indent}{arrow} {item.path}  {item.name}" + _described(item.description))
    for dangling in result.dangling:
        lines.append(f"dangling: [[{dangling.target}]] (line {dangling.line})")
    return "\n".join(lines)


def _described(description: str) -> str:
    return f" — {description}" if description else ""


def links(settings: Settings, locations: Locations, request: LinksRequest) -> int:
    """Run `remecli links`; returns the process exit code."""
    if request.depth > MAX_DEPTH:
        print(f"remecli: --depth is at most {MAX_DEPTH}", file=sys.stderr)
        return 2
    return asyncio.run(_act(settings, locations.root, request))


async def _act(settings: Settings, root: Path, request: LinksRequest) -> int:
    _memory, runner = one_shot(settings, search=False)  # the graph alone: no search index
    await runner.start(background=False)
    try:
        if request.rebuild:  # derived data only: parse every note again
            rebuilt = await runner.call(RebuildLinksParams())
            print(f"link graph rebuilt: {rebuilt.notes} notes")
            return 0
        if request.dangling:
            return await _dangling(runner, request.as_json)
        path = note_path(root, request.note)
        if request.rename:
            return await _rename(runner, path, note_path(root, request.rename))
        if request.delete:
            return await _delete(runner, path)
        return await _neighbours(runner, root, path, request)
    except JobError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 1
    finally:
        await runner.close(timeout=None)


async def _dangling(runner: JobRunner, as_json: bool) -> int:
    found = [edge.model_dump() for edge in (await runner.call(DanglingParams())).links]
    if as_json:
        print(json.dumps(found, ensure_ascii=False, indent=2))
    else:
        print("\n".join(f"{d['source']}:{d['line']}  [[{d['target']}]]" for d in found))
    return 0


async def _rename(runner: JobRunner, path: str, new_path: str) -> int:
    report = await runner.call(RenameParams(path=path, new_path=new_path))
    print(f"renamed {report.path} → {report.new_path}; links rewritten in {len(report.rewritten)}")
    for source in report.rewritten:
        print(f"  {source}")
    return 0


async def _delete(runner: JobRunner, path: str) -> int:
    done = await runner.call(DeleteParams(path=path))
    print(f"deleted {done.path} (restore: remecli memory restore {done.path} VERSION)")
    for edge in done.linking:
        print(f"  still linked from {edge.source}:{edge.line}  {edge.link}")
    return 0


async def _neighbours(runner: JobRunner, root: Path, path: str, request: LinksRequest) -> int:
    params = LinksParams(
        path=path, depth=request.depth, direction=request.direction, limit=NEIGHBOURS
    )
    try:
        found = await runner.call(params)
    except NotFound:
        print(f"remecli: no note {request.path!r} in {root}", file=sys.stderr)
        return 1
    if request.as_json:
        print(json.dumps(found.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        print(_plain(found))
    return 0
