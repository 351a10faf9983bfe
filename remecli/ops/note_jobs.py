"""Jobs on whole notes and the link graph: memory_rename, memory_delete, memory_dangling.

A rename moves a note and rewrites every link to it so each keeps its target; a delete removes a
note and lists what still links there. Both write through the runtime's memory writer, so every
file they change or remove keeps its previous content as a version (memory_history/restore).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import TypeVar

from pydantic import Field

from remecli.notes.links import LinkGraph
from remecli.notes.links.rename import (
    NameTaken,
    NotANote,
    NoteMissing,
    UndoFailed,
    delete,
    rename,
)
from remecli.notes.writer import MemoryWriteError
from remecli.ops.context import JobContext
from remecli.ops.errors import (
    EditConflict,
    JobError,
    NoteExists,
    NotFound,
    PathRefused,
    RenameFailed,
)
from remecli.ops.paths import Confined
from remecli.ops.registry import JOBS, JobParams, JobResult

T = TypeVar("T")


class RenameParams(JobParams["RenameResult"]):
    path: str = Field(min_length=1, description="The note to move (path or name), e.g. memory/a.md")
    new_path: str = Field(
        min_length=1, description="Its new path in the working dir, e.g. memory/b.md"
    )


class RenameResult(JobResult):
    path: str = Field(description="Where the note was")
    new_path: str = Field(description="Where it is now")
    rewritten: list[str] = Field(description="Notes whose links to it were rewritten")


class DeleteParams(JobParams["DeleteResult"]):
    path: str = Field(min_length=1, description="The note to delete (path or name)")


class LinkingNote(JobResult):
    source: str = Field(description="The note that links there")
    line: int
    link: str = Field(description="The link as written, e.g. [[deploy]]")


class DeleteResult(JobResult):
    path: str
    linking: list[LinkingNote] = Field(description="Links that now point nowhere")


class DanglingEdge(JobResult):
    source: str
    target: str
    line: int


class DanglingResult(JobResult):
    links: list[DanglingEdge] = Field(description="Every link that points nowhere, by note")


@contextmanager
def link_graph(ctx: JobContext) -> Iterator[LinkGraph]:
    """The runtime's link graph (synced unless a watcher follows it), or (search off or still
    opening) one of our own, synced."""
    shared = ctx.memory.links
    if shared is not None:
        shared.refresh()
        yield shared
        return
    graph = LinkGraph.open(ctx.root)
    try:
        yield graph
    finally:
        graph.close()


def locate_note(ctx: JobContext, graph: LinkGraph, raw: str) -> Confined:
    """The note `raw` names (a path or a note name), confined to the working dir."""
    return ctx.confine(graph.locate(raw) or raw)


def touched_notes(ctx: JobContext, job: str, arguments: Mapping[str, object]) -> list[str]:
    """The notes memory_rename or memory_delete would write, before it runs (a surface checks
    them against a path-confined token): the note (a name resolved as the job resolves it), and
    for a rename its new path and every note linking to it (their links are rewritten); [] when
    the job will refuse the call itself."""
    path, new_path = arguments.get("path"), arguments.get("new_path")
    if not isinstance(path, str) or not path.strip():
        return []
    try:
        with link_graph(ctx) as graph:
            if job == "memory_rename":
                graph.sync()  # as the rename will: a link added to any note since is counted
            note = locate_note(ctx, graph, path).relative
            if job != "memory_rename" or not isinstance(new_path, str) or not new_path.strip():
                return [note]
            linking = sorted({e.source for e in graph.backlinks(note)} - {note})
            return [note, ctx.confine(new_path).relative, *linking]
    except JobError:
        return []


async def _changing_notes(work: Callable[[], T]) -> T:
    """Run `work` off the event loop; the notes package's refusals as job errors."""
    try:
        return await asyncio.to_thread(work)
    except NotANote as exc:
        raise PathRefused(f"{exc} Pick a note (see memory_list).") from None
    except NoteMissing as exc:
        raise NotFound(f"{exc} Use memory_list or memory_search to find the note.") from None
    except NameTaken as exc:
        raise NoteExists(str(exc)) from None
    except UndoFailed as exc:
        raise RenameFailed(str(exc)) from None
    except MemoryWriteError as exc:  # e.g. a file changed meanwhile: nothing was lost
        raise EditConflict(str(exc)) from None


@JOBS.define("memory_rename", params=RenameParams, result=RenameResult, read_only=False)
async def memory_rename(ctx: JobContext, params: RenameParams) -> RenameResult:
    """Move a note to a new path and rewrite every link to it, so each keeps its target.

    Every file changed keeps its previous content as a version (memory_history).
    """

    def move() -> RenameResult:
        with link_graph(ctx) as graph:
            old = locate_note(ctx, graph, params.path)
            new = ctx.confine(params.new_path)
            with ExitStack() as held:  # both names, in one order (no deadlock with another)
                for path in sorted({old.path, new.path}):
                    held.enter_context(ctx.locks.hold(path))
                report = rename(graph, ctx.writer, old.relative, new.relative)
        return RenameResult(path=report.old, new_path=report.new, rewritten=report.rewritten)

    return await _changing_notes(move)


@JOBS.define("memory_delete", params=DeleteParams, result=DeleteResult, read_only=False)
async def memory_delete(ctx: JobContext, params: DeleteParams) -> DeleteResult:
    """Delete a note (kept in its history: memory_restore brings it back) and list the links
    that now point nowhere."""

    def remove() -> DeleteResult:
        with link_graph(ctx) as graph:
            note = locate_note(ctx, graph, params.path)
            with ctx.locks.hold(note.path):
                edges = delete(graph, ctx.writer, note.relative)
        linking = [LinkingNote(source=e.source, line=e.link.line, link=e.link.raw) for e in edges]
        return DeleteResult(path=note.relative, linking=linking)

    return await _changing_notes(remove)


class DanglingParams(JobParams[DanglingResult]):
    """No parameters."""


@JOBS.define("memory_dangling", params=DanglingParams, result=DanglingResult, read_only=True)
async def memory_dangling(ctx: JobContext, params: DanglingParams) -> DanglingResult:
    """Every link in the notes that points nowhere (source note, target as written, line)."""

    def listing() -> DanglingResult:
        with link_graph(ctx) as graph:
            edges = graph.dangling()
        return DanglingResult(
            links=[
                DanglingEdge(source=e.source, target=e.link.target, line=e.link.line) for e in edges
            ]
        )

    return await asyncio.to_thread(listing)


class RebuildLinksParams(JobParams["RebuildLinksResult"]):
    """No parameters."""


class RebuildLinksResult(JobResult):
    notes: int = Field(description="Notes parsed")


@JOBS.define(
    "memory_links_rebuild",
    params=RebuildLinksParams,
    result=RebuildLinksResult,
    read_only=False,
    served=False,
)
async def memory_links_rebuild(ctx: JobContext, params: RebuildLinksParams) -> RebuildLinksResult:
    """Parse every note again into the link graph (derived data only; `remecli links --rebuild`)."""
    from remecli.ops.search_jobs import _rebuild_links  # what memory_reindex does for links

    return RebuildLinksResult(notes=await asyncio.to_thread(_rebuild_links, ctx))
