"""`remecli links PATH [--json] [--depth N] [--direction in|out|both]` and friends.

PATH is a note relative to the working dir (`memory/2025-01-31.md`), a path to it, or a note
name (`"Deploy steps"`). `--rename NEW` moves the note and retargets every link to it;
`--delete` removes it (kept in its history) and lists what still links there; `--dangling`
lists every link that points nowhere; `--rebuild` parses every note again. The usual `config=…` and `key=value` arguments apply.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from remecli.notes.links.expand import neighbours
from remecli.notes.links.graph import LinkGraph
from remecli.surfaces.cli.start import UsageError, start_on_working_dir

if TYPE_CHECKING:
    from remecli.config.settings import Settings

_SETTING = re.compile(r"^[A-Za-z_][\w.]*=")
USAGE = (
    "usage: remecli links PATH [--json] [--depth N] [--direction in|out|both] "
    "[config=NAME] [key=value ...]\n"
    "       remecli links PATH --rename NEW | --delete\n"
    "       remecli links --dangling [--json] | --rebuild"
)


def parse_args(argv: list[str]) -> tuple[dict, list[str]]:
    """Split argv into options and `key=value` settings."""
    options: dict = {
        "path": None,
        "json": False,
        "depth": 1,
        "direction": "both",
        "rename": None,
        "delete": False,
        "dangling": False,
        "rebuild": False,
    }
    settings: list[str] = []
    items = list(argv)
    while items:
        item = items.pop(0)
        name, _, inline = item.partition("=") if item.startswith("--") else (item, "", "")
        if name in ("--json", "--delete", "--dangling", "--rebuild"):
            options[name[2:]] = True
        elif name in ("--depth", "--direction", "--rename"):
            value = inline or (items.pop(0) if items else "")
            options[name[2:]] = value
        elif name in ("-h", "--help"):
            raise UsageError("")
        elif item.startswith("--"):
            raise UsageError(f"unknown option {item}")
        elif _SETTING.match(item) and not item.endswith(".md"):
            settings.append(item)
        elif options["path"] is None:
            options["path"] = item
        else:
            raise UsageError(f"unexpected argument {item!r}")
    try:
        options["depth"] = int(options["depth"])
    except ValueError:
        raise UsageError(f"--depth needs a whole number, got {options['depth']!r}") from None
    if options["depth"] < 1:
        raise UsageError("--depth must be at least 1")
    if options["direction"] not in ("in", "out", "both"):
        raise UsageError("--direction must be in, out or both")
    if options["rename"] == "":
        raise UsageError("--rename needs the new path")
    if not options["dangling"] and not options["rebuild"] and not options["path"]:
        raise UsageError("remecli links needs a PATH (or --dangling)")
    return options, settings


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


def run(argv: list[str]) -> int:
    """Run `remecli links`; returns the process exit code."""
    started = start_on_working_dir(lambda: parse_args(argv), USAGE)
    if isinstance(started, int):
        return started
    options, settings, locations = started
    working_dir = locations.root
    graph = LinkGraph.open(working_dir)
    try:
        return _act(graph, settings, options)
    finally:
        graph.close()


def _act(graph: LinkGraph, settings: Settings, options: dict) -> int:
    from remecli.notes.links.rename import delete, rename
    from remecli.notes.writer import MemoryWriteError, MemoryWriter

    if options["rebuild"]:
        print(f"link graph rebuilt: {graph.rebuild()} notes")
        return 0
    if options["dangling"]:
        found = [
            {"source": e.source, "target": e.link.target, "line": e.link.line}
            for e in graph.dangling()
        ]
        if options["json"]:
            print(json.dumps(found, ensure_ascii=False, indent=2))
        else:
            print("\n".join(f"{d['source']}:{d['line']}  [[{d['target']}]]" for d in found))
        return 0
    path = note_path(graph, options["path"])
    writer = MemoryWriter.from_settings(graph.root, settings.memory)
    try:
        if options["rename"]:
            report = rename(graph, writer, path, options["rename"])
            print(
                f"renamed {report.old} → {report.new}; links rewritten in {len(report.rewritten)}"
            )
            for source in report.rewritten:
                print(f"  {source}")
            return 0
        if options["delete"]:
            linking = delete(graph, writer, path)
            print(f"deleted {path} (restore: remecli memory restore {path} VERSION)")
            for edge in linking:
                print(f"  still linked from {edge.source}:{edge.link.line}  {edge.link.raw}")
            return 0
    except MemoryWriteError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 1
    if path not in graph.notes() and not (graph.root / path).is_file():
        print(f"remecli: no note {options['path']!r} in {graph.root}", file=sys.stderr)
        return 1
    result = neighbours(graph, path, options["depth"], options["direction"])
    if options["json"]:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(_plain(result))
    return 0
