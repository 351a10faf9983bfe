"""What Studio reads, each through the operations layer (`JobRunner.call`, the same jobs the CLI,
MCP and HTTP run): the navigator's sections and counts, a note rendered with its links, search.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from remecli.ops import JobError, JobResult, JobRunner, view_jobs
from remecli.ops.claims_job import note_claims
from remecli.ops.file_jobs import ListParams, ListResult
from remecli.ops.knowledge_jobs import LinksParams, LinksResult
from remecli.ops.registry import parse_params
from remecli.ops.search_jobs import SearchRequest
from remecli.ops.view_jobs import ResolveParams
from remecli.surfaces.studio.render import Rendered, RenderedField, render_note, render_plain

DATED = r"\d{4}-\d{2}-\d{2}"


@dataclass(frozen=True)
class Section:
    """One part of the navigator: where its files live and which of them belong to it."""

    key: str
    title: str
    folder: str
    recursive: bool
    belongs: Callable[[str], bool]
    newest_first: bool = False


def _matching(pattern: str) -> Callable[[str], bool]:
    compiled = re.compile(pattern)
    return lambda path: compiled.fullmatch(path) is not None


_DAY = _matching(rf"memory/{DATED}\.md")
_CARD = _matching(rf"memory/{DATED}/[^/]+\.md")


def _own_note(path: str) -> bool:
    """A note under memory/ that is neither a day page nor a card: one the user, the agent or
    an MCP client wrote there (`memory/notes/deploys.md`); else no section would list it."""
    return path.endswith(".md") and not _DAY(path) and not _CARD(path)


SECTIONS: tuple[Section, ...] = (
    Section("memory", "Memory", "", False, lambda p: p == "MEMORY.md"),
    Section("days", "Days", "memory", False, _DAY, True),
    Section("cards", "Cards", "memory", True, _CARD, True),
    Section("notes", "Notes", "memory", True, _own_note),
    Section("digest", "Digest", "digest", True, lambda p: p.endswith(".md")),
    Section("resources", "Resources", "resource", True, lambda p: not p.endswith("/")),
    Section("sessions", "Sessions", "sessions", False, lambda p: p.endswith(".jsonl"), True),
)
SECTION_BY_KEY = {section.key: section for section in SECTIONS}


def sha256_text(text: str) -> str:
    """The version marker of a file's content (what the editor sends back on save)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class StudioFile(TypedDict):
    """A file of a section: path, bytes, last change (ISO 8601); the route adds its facets."""

    path: str
    size: int
    modified: str
    name: NotRequired[str]
    tags: NotRequired[list[str]]
    projects: NotRequired[list[str]]


class SectionFiles(TypedDict):
    key: str
    title: str
    files: list[StudioFile]
    truncated: bool


class SectionCount(TypedDict):
    key: str
    title: str
    count: int
    count_is_floor: bool


class Navigator(TypedDict):
    sections: list[SectionCount]
    read_only: bool


class NoteView(TypedDict):
    """A note as the page shows it (see `note_view`)."""

    path: str
    content: str
    sha256: str
    complete: bool
    editable: bool
    versioned: bool
    fields: list[RenderedField]
    html: str
    problem: str
    outlinks: list[dict[str, object]]
    backlinks: list[dict[str, object]]
    dangling: list[dict[str, object]]
    claims: list[dict[str, object]]


async def _listing(runner: JobRunner, folder: str, recursive: bool) -> ListResult:
    try:
        return await runner.call(ListParams(folder=folder, recursive=recursive))
    except JobError as exc:
        if exc.status == 404:  # the folder is not there yet: an empty section
            return ListResult(folder=folder, entries=[], truncated=False)
        raise


async def section_files(runner: JobRunner, section: Section) -> SectionFiles:
    """`{"key", "title", "files": [{path, size, modified}], "truncated"}` of one section."""
    listing = await _listing(runner, section.folder, section.recursive)
    files = [
        StudioFile(path=e.path, size=e.size or 0, modified=e.modified)
        for e in listing.entries
        if e.type == "file" and section.belongs(e.path)
    ]
    files.sort(key=lambda f: f["path"], reverse=section.newest_first)
    return SectionFiles(
        key=section.key, title=section.title, files=files, truncated=listing.truncated
    )


async def navigator(runner: JobRunner) -> Navigator:
    """Every section with its count (`count_is_floor` when a listing was cut at its limit)."""
    found = await asyncio.gather(*(section_files(runner, s) for s in SECTIONS))
    return Navigator(
        sections=[
            SectionCount(
                key=part["key"],
                title=part["title"],
                count=len(part["files"]),
                count_is_floor=part["truncated"],
            )
            for part in found
        ],
        read_only=runner.read_only,
    )


async def read_whole(runner: JobRunner, path: str) -> tuple[str, bool]:
    """(content, complete) of a file, read page by page with memory_read."""
    return await view_jobs.read_whole(runner.call, path)


async def _links(runner: JobRunner, path: str) -> LinksResult | None:
    try:
        return await runner.call(LinksParams.parse(path=path, depth=1))
    except JobError:  # not a note the graph knows (a transcript, a resource): no links
        return None


async def render_text(runner: JobRunner, path: str, text: str) -> Rendered:
    """`{"fields", "html", "problem"}` of `text` as the note at `path` (the editor's preview)."""
    if not path.endswith(".md"):
        return Rendered(fields=[], html=render_plain(text), problem="")
    resolved = (await runner.call(ResolveParams.parse(path=path, text=text))).resolved
    return render_note(text, lambda target: resolved.get(target), creatable=not runner.read_only)


def is_memory_file(runner: JobRunner, path: str) -> bool:
    """True for the files the memory writer owns and versions (MEMORY.md, memory/**, digest/**)."""
    try:
        return runner.context.writer.is_memory_file(runner.context.confine(path).path)
    except JobError:
        return False


def _dumped(items: Sequence[JobResult]) -> list[dict[str, object]]:
    return [item.model_dump(mode="json") for item in items]


async def note_view(runner: JobRunner, path: str) -> NoteView:
    """A note as the page shows it: content and its version marker, rendered HTML, frontmatter
    fields, outlinks and backlinks, and whether Studio may edit it."""
    text, complete = await read_whole(runner, path)
    rendered, links = await asyncio.gather(render_text(runner, path, text), _links(runner, path))
    return NoteView(
        path=path,
        content=text,
        sha256=sha256_text(text),
        complete=complete,
        editable=complete
        and not runner.read_only
        and path.endswith(".md")
        and is_memory_file(runner, path),
        versioned=is_memory_file(runner, path),
        fields=rendered["fields"],
        html=rendered["html"],
        problem=rendered["problem"],
        outlinks=_dumped(links.out) if links else [],
        backlinks=_dumped(links.in_) if links else [],
        dangling=_dumped(links.dangling) if links else [],
        claims=note_claims(text) if path.endswith(".md") else [],
    )


async def search(
    runner: JobRunner, query: str, source: str | None, as_of: str | None = None
) -> dict[str, Any]:
    """memory_search, 20 hits at most (`as_of`: what was true on that day)."""
    request = parse_params(
        SearchRequest, query=query, max_results=20, source=source or None, as_of=as_of or None
    )
    return await runner.answer(request)
