"""`remecli search "query" [--json] [--max N] [--min-score X] [--source S] [--since D] [--until D]`
and `remecli reindex`.

Both accept the usual `config=…` and `key=value` arguments (e.g. `working_dir=~/notes/.reme`).
"""

from __future__ import annotations

import json
import re
import sys
from contextlib import contextmanager
from pathlib import Path

from remecli.search.embedders import EmbeddingError
from remecli.search.index import MemoryIndex
from remecli.search.types import SearchResult, SyncReport
from remecli.surfaces.cli.start import UsageError, start_on_working_dir

_SETTING = re.compile(r"^[A-Za-z_][\w.]*=")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
USAGE = (
    'usage: remecli search "query" [--json] [--max N] [--min-score X]\n'
    "                      [--source notes|transcripts|all] [--since YYYY-MM-DD] "
    "[--until YYYY-MM-DD]\n"
    "                      [config=NAME] [key=value ...]\n"
    "       remecli reindex [config=NAME] [key=value ...]"
)
_SOURCES = ("notes", "transcripts", "all")


def parse_args(command: str, argv: list[str]) -> tuple[dict, list[str]]:
    """Split argv into options (query, json, max, min_score; source, since, until when given)
    and settings (key=value)."""
    options: dict = {"query": None, "json": False, "max": None, "min_score": None}
    settings: list[str] = []
    items = list(argv)
    while items:
        item = items.pop(0)
        name, _, inline = item.partition("=") if item.startswith("--") else (item, "", "")
        if name == "--json":
            options["json"] = True
        elif name in ("--max", "--min-score"):
            value = inline or (items.pop(0) if items else "")
            try:
                key = "max" if name == "--max" else "min_score"
                options[key] = int(value) if key == "max" else float(value)
            except ValueError:
                raise UsageError(f"{name} needs a number, got {value!r}") from None
            if key == "max" and options["max"] < 1:
                raise UsageError("--max must be at least 1")
        elif name in ("--source", "--since", "--until"):
            value = (inline or (items.pop(0) if items else "")).strip()
            if name == "--source" and value not in _SOURCES:
                raise UsageError(f"--source must be one of {', '.join(_SOURCES)}, got {value!r}")
            if name != "--source" and not _DATE.match(value):
                raise UsageError(f"{name} needs a date like 2025-01-31, got {value!r}")
            options[name[2:]] = value
        elif name in ("-h", "--help"):
            raise UsageError("")
        elif item.startswith("--"):
            raise UsageError(f"unknown option {item}")
        elif _SETTING.match(item):
            settings.append(item)
        elif command == "search" and options["query"] is None:
            options["query"] = item
        else:
            raise UsageError(f"unexpected argument {item!r}")
    if command == "search" and not (options["query"] or "").strip():
        raise UsageError("remecli search needs a query")
    return options, settings


@contextmanager
def progress_bar():
    """A rich progress bar on stderr; yields the callback the index reports to."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
    )

    console = Console(stderr=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(
        *columns, console=console, transient=True, disable=not console.is_terminal
    ) as bar:
        tasks: dict[str, TaskID] = {}

        def report(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield report


def format_result(result: SearchResult) -> str:
    """One human-readable hit: location, score, signals, what the note says, first lines."""
    lines = result.snippet.strip().splitlines()
    shown = "\n".join(f"    {line}" for line in lines[:4])
    more = "\n    …" if len(lines) > 4 else ""
    where = f"{result.path}:{result.start_line}-{result.end_line}"
    if result.source == "transcript":
        where += "  (transcript"
        where += f", {result.date})" if result.date else ")"
    elif result.date:
        where += f"  ({result.date})"
    about = ""
    if result.name or result.description:
        about = "  " + " — ".join(p for p in (result.name, result.description) if p) + "\n"
    if result.tags:
        about += "  tags: " + ", ".join(result.tags) + "\n"
    return f"{where}  score {result.score:.2f}  [{', '.join(result.signals)}]\n{about}{shown}{more}"


def _summary(report: SyncReport) -> str:
    text = (
        f"indexed {report.files_seen} files: {report.files_changed} changed, "
        f"{report.files_removed} removed; {report.chunks_added} chunks added, "
        f"{report.chunks_removed} removed, {report.chunks_embedded} embedded"
    )
    if report.embedding_error:
        text += f"\nwarning: {report.embedding_error} (keyword search still works)"
    return text


def run(command: str, argv: list[str]) -> int:
    """Run `search` or `reindex`; returns the process exit code."""
    started = start_on_working_dir(lambda: parse_args(command, argv), USAGE)
    if isinstance(started, int):
        return started
    options, settings, locations = started
    working_dir = locations.root
    try:
        index = MemoryIndex.open(working_dir, settings.search)
    except EmbeddingError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"remecli: cannot open the search index in {working_dir}: {exc}", file=sys.stderr)
        return 1
    try:
        with progress_bar() as report_progress:
            if command == "reindex":
                print(_summary(index.reindex_blocking(report_progress)))
                notes = _rebuild_links(working_dir)
                print(f"link graph: {notes} notes")
                return 0
            report = index.sync_blocking(report_progress)
        if report.embedding_error:
            print(
                f"warning: {report.embedding_error} (keyword search still works)", file=sys.stderr
            )
        if index.recovered:
            print(f"note: {index.recovered}", file=sys.stderr)
        results = index.search_blocking(
            options["query"],
            options["max"],
            options["min_score"],
            source=options.get("source"),
            since=options.get("since"),
            until=options.get("until"),
        )
    finally:
        index.close()
    if options["json"]:
        hits = _with_links(working_dir, [r.to_dict() for r in results])
        print(json.dumps(hits, ensure_ascii=False, indent=2))
    elif not results:
        print("no matches")
    else:
        print("\n\n".join(format_result(r) for r in results))
    return 0


def _rebuild_links(working_dir: Path) -> int:
    """`remecli reindex` rebuilds the derived link graph too; returns its note count."""
    from remecli.notes.links import LinkGraph

    graph = LinkGraph(working_dir)
    try:
        return graph.rebuild()
    finally:
        graph.close()


def _with_links(working_dir: Path, hits: list[dict]) -> list[dict]:
    """Each hit with its note's links (`links: {out, in}`), as the agent's memory_search has."""
    from remecli.notes.links import LinkGraph, expand

    graph = LinkGraph.open(working_dir)
    try:
        return expand(hits, graph)
    finally:
        graph.close()
