"""`remecli search` and `remecli reindex` over an existing working dir (the options are parsed by
the command table, `remecli.cli`)."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path

from remecli.config.locations import Locations
from remecli.config.settings import Settings
from remecli.search.embedders import EmbeddingError
from remecli.search.index import MemoryIndex
from remecli.search.types import SearchResult, SyncReport


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


def _open_index(settings: Settings, working_dir: Path) -> MemoryIndex | int:
    """The index, or the exit code after a one-line error."""
    try:
        return MemoryIndex.open(working_dir, settings.search)
    except EmbeddingError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"remecli: cannot open the search index in {working_dir}: {exc}", file=sys.stderr)
        return 1


def reindex(settings: Settings, locations: Locations) -> int:
    """Rebuild the index and the link graph from the files; prints a summary."""
    index = _open_index(settings, locations.root)
    if isinstance(index, int):
        return index
    try:
        with progress_bar() as report_progress:
            print(_summary(index.reindex_blocking(report_progress)))
        print(f"link graph: {_rebuild_links(locations.root)} notes")
    finally:
        index.close()
    return 0


def search(
    settings: Settings,
    locations: Locations,
    query: str,
    *,
    as_json: bool = False,
    max_results: int | None = None,
    min_score: float | None = None,
    source: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> int:
    """Bring the index up to date, search it, print the hits (JSON: with their links)."""
    working_dir = locations.root
    index = _open_index(settings, working_dir)
    if isinstance(index, int):
        return index
    try:
        with progress_bar() as report_progress:
            report = index.sync_blocking(report_progress)
        if report.embedding_error:
            print(
                f"warning: {report.embedding_error} (keyword search still works)", file=sys.stderr
            )
        if index.recovered:
            print(f"note: {index.recovered}", file=sys.stderr)
        results = index.search_blocking(
            query, max_results, min_score, source=source, since=since, until=until
        )
    finally:
        index.close()
    if as_json:
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
