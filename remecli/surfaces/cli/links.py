"""`remecli links`: a note's links both ways, and rename, delete, dangling links, rebuild.

PATH is a note relative to the working dir (`memory/2025-01-31.md`), a path to it, or a note
name (`"Deploy steps"`). `--rename NEW` moves the note and retargets every link to it;
`--delete` removes it (kept in its history) and lists what still links there; `--dangling`
lists every link that points nowhere; `--rebuild` parses every note again.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from remecli.config.locations import Locations
from remecli.config.settings import Settings
from remecli.notes.links.expand import neighbours
from remecli.notes.links.graph import LinkGraph

Direction = Literal["in", "out", "both"]


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


def note_path(graph: LinkGraph, raw: str) -> str:
    """The working-dir-relative note `raw` names (a path from the current folder works too)."""
    here = Path.cwd() / raw
    if not Path(raw).is_absolute() and here.is_file():
        found = graph.locate(str(here))
        if found is not None:
            return found
    return graph.locate(raw) or raw


def _plain(result: dict) -> str:
    lines = [f"{result['path']}  {result['name']}" + _described(result)]
    for key, arrow in (("out", "→"), ("in", "←")):
        lines.append(f"{key}:" if result[key] else f"{key}: (none)")
        for item in result[key]:
            indent = "  " * item["depth"]
            lines.append(f"{indent}{arrow} {item['path']}  {item['name']}" + _described(item))
    for item in result.get("dangling", []):
        lines.append(f"dangling: [[{item['target']}]] (line {item['line']})")
    return "\n".join(lines)


def _described(item: dict) -> str:
    return f" — {item['description']}" if item.get("description") else ""


def links(settings: Settings, locations: Locations, request: LinksRequest) -> int:
    """Run `remecli links`; returns the process exit code."""
    graph = LinkGraph.open(locations.root)
    try:
        return _act(graph, settings, request)
    finally:
        graph.close()


def _act(graph: LinkGraph, settings: Settings, request: LinksRequest) -> int:
    from remecli.notes.links.rename import delete, rename
    from remecli.notes.writer import MemoryWriteError, MemoryWriter

    if request.rebuild:
        print(f"link graph rebuilt: {graph.rebuild()} notes")
        return 0
    if request.dangling:
        found = [
            {"source": e.source, "target": e.link.target, "line": e.link.line}
            for e in graph.dangling()
        ]
        if request.as_json:
            print(json.dumps(found, ensure_ascii=False, indent=2))
        else:
            print("\n".join(f"{d['source']}:{d['line']}  [[{d['target']}]]" for d in found))
        return 0
    path = note_path(graph, request.note)
    writer = MemoryWriter.from_settings(graph.root, settings.memory)
    try:
        if request.rename:
            report = rename(graph, writer, path, request.rename)
            print(
                f"renamed {report.old} → {report.new}; links rewritten in {len(report.rewritten)}"
            )
            for source in report.rewritten:
                print(f"  {source}")
            return 0
        if request.delete:
            linking = delete(graph, writer, path)
            print(f"deleted {path} (restore: remecli memory restore {path} VERSION)")
            for edge in linking:
                print(f"  still linked from {edge.source}:{edge.link.line}  {edge.link.raw}")
            return 0
    except MemoryWriteError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 1
    if path not in graph.notes() and not (graph.root / path).is_file():
        print(f"remecli: no note {request.path!r} in {graph.root}", file=sys.stderr)
        return 1
    result = neighbours(graph, path, request.depth, request.direction)
    if request.as_json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(_plain(result))
    return 0
