"""`remecli search` and `remecli reindex`: the memory_search and memory_reindex operations from
the shell, over an existing working dir (the options are parsed by the command table,
`remecli.cli`). A one-shot runtime: the layout and the index open, nothing runs in the
background."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from remecli.config.disk_full import disk_full_text, is_disk_full, no_space_left
from remecli.config.locations import Locations
from remecli.config.settings import Settings
from remecli.ops import JobError
from remecli.ops.host import MemoryHost, Progress
from remecli.ops.registry import NoParams
from remecli.ops.search_jobs import ReindexResult, SearchRequest, memory_reindex, memory_search
from remecli.search.embedders import EmbeddingError
from remecli.search.hits import ClaimMark, SearchHit
from remecli.surfaces.cli.job import one_shot
from remecli.surfaces.cli.read_only import (
    read_only_note,
    reindex_refused,
    search_read_only,
    unwritable,
)

if TYPE_CHECKING:
    from remecli.search import MemoryIndex


@contextmanager
def progress_bar() -> Iterator[Progress]:
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


def format_result(result: SearchHit) -> str:
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
    if result.project:
        where += f"  [project {result.project}]"
    about = ""
    if result.name or result.description:
        about = "  " + " — ".join(p for p in (result.name, result.description) if p) + "\n"
    if result.tags:
        about += "  tags: " + ", ".join(result.tags) + "\n"
    score = f"score {result.score:.2f}" + (" weak" if result.weak else "")
    return f"{where}  {score}  [{', '.join(result.signals)}]\n{about}{shown}{more}"


def claims_note(claims: Sequence[ClaimMark] | None, as_of: str | None = None) -> str:
    """A hit's timed claims, one line each: whether it held (today, or on `as_of`), when,
    and what replaced it."""
    lines = []
    for claim in claims or []:
        since, until = claim.since, claim.until
        held = f"{since} to {until}" if since and until else f"until {until}" if until else ""
        held = held or f"since {since}"
        by = f", replaced by {claim.replaced_by}" if claim.replaced_by else ""
        if as_of:
            label = f"true on {as_of}" if claim.valid else f"not true on {as_of}"
        else:
            label = "current" if claim.valid else "superseded"
        lines.append(f"  {label}: {claim.text} ({held}{by})")
    return "\n" + "\n".join(lines) if lines else ""


def _summary(report: ReindexResult) -> str:
    text = (
        f"indexed {report.files_seen} files: {report.files_changed} changed, "
        f"{report.files_removed} removed; {report.chunks_added} chunks added, "
        f"{report.chunks_removed} removed, {report.chunks_embedded} embedded"
    )
    if report.embedding_error:
        text += f"\nwarning: {report.embedding_error} (keyword search still works)"
    return text


def _index_failed(memory: MemoryHost) -> int | None:
    """The exit code after a one-line error when the index did not open (None: it is open)."""
    failure = memory.index_failure
    if memory.index is not None or failure is None:
        return None
    if isinstance(failure, EmbeddingError):
        print(f"remecli: {failure}", file=sys.stderr)
        return 2
    root, why = memory.layout.root, str(failure)
    if is_disk_full(failure) or no_space_left(root):  # SQLite may call it "disk I/O error"
        why = f"{disk_full_text(root)}; free some space and try again (the index is kept)"
    print(f"remecli: cannot open the search index in {root}: {why}", file=sys.stderr)
    return 1


def _failed(exc: JobError) -> int:
    print(f"remecli: {exc}", file=sys.stderr)
    return 1


def reindex(settings: Settings, locations: Locations) -> int:
    """Rebuild the index and the link graph from the files; prints a summary."""
    return asyncio.run(_reindex(settings, locations))


def _repair_index_dir(locations: Locations) -> None:
    """An index that is a file, not a folder, is removed before the runtime opens (said once)."""
    note = locations.ensure_index_dir() if locations.root.is_dir() else ""
    if note:
        print(f"note: {note}", file=sys.stderr)


async def _reindex(settings: Settings, locations: Locations) -> int:
    reason = unwritable(locations.root)
    if reason:
        print(reindex_refused(locations.root, reason), file=sys.stderr)
        return 2
    memory, runner = one_shot(settings)  # logs go to the file from here on
    _repair_index_dir(locations)
    try:
        with progress_bar() as report_progress:
            await runner.start(wait_for_index=True, background=False, progress=report_progress)
            failed = _index_failed(memory)
            if failed is not None:
                return failed
            if memory.index is not None and memory.index.recovered:  # damage found, said once
                print(f"note: {memory.index.recovered}", file=sys.stderr)
            runner.context.progress = report_progress
            report = await runner.call(memory_reindex, NoParams())
    except JobError as exc:
        return _failed(exc)
    finally:
        runner.context.progress = None
        await runner.close(timeout=None)
    print(_summary(report))
    print(f"link graph: {report.notes} notes")
    print(f"transcript pages: {report.transcript_pages} (sessions/<id>.md)")
    return 0


def search(
    settings: Settings, locations: Locations, request: SearchRequest, *, as_json: bool = False
) -> int:
    """Bring the index up to date, search it, print the hits (JSON: with their links)."""
    hits = asyncio.run(_search(settings, locations, request))
    if isinstance(hits, int):
        return hits
    if as_json:
        print(json.dumps([hit.to_dict() for hit in hits], ensure_ascii=False, indent=2))
    elif not hits:
        print("no matches")
    else:
        as_of = request.as_of.isoformat() if request.as_of else None
        notes = [format_result(hit) + claims_note(hit.claims, as_of) for hit in hits]
        print("\n\n".join(notes))
    return 0


WAIT_FOR_VECTORS = 500  # chunks a one-shot search embeds before it answers (seconds, not minutes)


def _embed_first(index: MemoryIndex) -> None:
    """A one-shot search answers with vectors: what the last writes left without one is
    embedded first, unless that backlog is large (then it is said, and keyword finds those)."""
    pending = index.store.count_without_vectors()
    if pending > WAIT_FOR_VECTORS:
        print(
            f"note: {pending} chunks have no vector yet (keyword search finds them); "
            "`remecli reindex` embeds them all",
            file=sys.stderr,
        )
        return
    if pending:
        index.want_embedding(wait=True)


async def _search(
    settings: Settings, locations: Locations, request: SearchRequest
) -> list[SearchHit] | int:
    """The hits of memory_search (with their links), or the exit code after an error."""
    reason = unwritable(locations.root)
    if reason:  # a read needs no write: searched from a temporary copy of the index
        print(read_only_note(locations.root, reason), file=sys.stderr)
        try:
            return await search_read_only(settings, request)
        except JobError as exc:
            return _failed(exc)
    memory, runner = one_shot(settings)  # logs go to the file from here on
    _repair_index_dir(locations)
    try:
        with progress_bar() as report_progress:
            await runner.start(wait_for_index=True, background=False, progress=report_progress)
        failed = _index_failed(memory)
        if failed is not None:
            return failed
        index = memory.index
        if index is not None and index.last_error:  # the first sync's embedding error
            print(f"warning: {index.last_error} (keyword search still works)", file=sys.stderr)
        if index is not None and index.recovered:
            print(f"note: {index.recovered}", file=sys.stderr)
        if index is not None:
            await asyncio.to_thread(_embed_first, index)
        found = await runner.call(memory_search, request)
    except JobError as exc:
        return _failed(exc)
    finally:
        await runner.close(timeout=None)
    return found.results
