"""Read models Studio shows, as jobs (`served=False`: run in-process with `JobRunner.call`, not
listed on MCP or HTTP): the navigator's facets of notes, the dream's interests, where the
wikilinks of a text point. Each reads through memory_read, memory_list and memory_links.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import yaml
from pydantic import Field

from remecli.notes.frontmatter import read_frontmatter
from remecli.notes.links.parse import LINK_TEXT, split_link
from remecli.ops.context import JobContext
from remecli.ops.errors import JobError
from remecli.ops.file_jobs import ListParams, memory_list
from remecli.ops.knowledge_jobs import LinksParams, memory_links
from remecli.ops.read_job import ReadParams, ReadResult, memory_read
from remecli.ops.registry import JOBS, JobParams, JobResult

MAX_NOTE_CHARS = 2_000_000  # a note longer than this is shown cut (`complete` false)
HEAD_LINES = 60  # a frontmatter longer than this is not read for filters
PARALLEL_READS = 8
INTEREST_DAYS = 30
INTERESTS_FILE = re.compile(r"memory/(\d{4}-\d{2}-\d{2})/interests\.yaml")

Reader = Callable[[ReadParams], Awaitable[ReadResult]]


async def read_whole(read: Reader, path: str, max_chars: int = MAX_NOTE_CHARS) -> tuple[str, bool]:
    """(content, complete) of a file, read page by page with `read` (memory_read)."""
    parts: list[str] = []
    size = 0
    params: ReadParams | None = ReadParams.parse(path=path)
    while params is not None:
        page = await read(params)
        parts.append(page.content)
        size += len(page.content)
        if page.next_start_line is None:
            return "".join(parts), True
        if size >= max_chars:
            return "".join(parts), False
        params = ReadParams(
            path=path,
            start_line=page.next_start_line,
            end_line=None,
            start_char=page.next_start_char or 0,
        )
    return "".join(parts), True


def reader(ctx: JobContext) -> Reader:
    """memory_read on `ctx`, for `read_whole` inside a job."""
    return partial(memory_read, ctx)


def link_targets(text: str) -> set[str]:
    """The distinct wikilink targets written anywhere in `text` (frontmatter too)."""
    found = set()
    for match in LINK_TEXT.finditer(text):
        link = split_link(match.group(1), 1)
        if link is not None and link.target:
            found.add(link.target)
    return found


async def resolve(ctx: JobContext, source: str, targets: set[str]) -> dict[str, str | None]:
    """Where each wikilink target written in `source` points: the runtime's link graph when it
    is open (resolved from `source`, as the graph does), else memory_links per target."""
    graph = getattr(ctx.memory, "links", None)
    if graph is not None:
        return {t: graph.resolve(source, t) for t in targets}
    resolved: dict[str, str | None] = {}
    for target in targets:
        try:
            resolved[target] = (await memory_links(ctx, LinksParams.parse(path=target))).path
        except JobError:
            resolved[target] = None
    return resolved


class ResolveParams(JobParams["ResolveResult"]):
    path: str = Field(description="The note the text is (links resolve from it)")
    text: str = Field(description="Markdown whose wikilinks to resolve")


class ResolveResult(JobResult):
    resolved: dict[str, str | None] = Field(description="Each target: its note, None: nowhere")


@JOBS.define(
    "memory_resolve_links", params=ResolveParams, result=ResolveResult, read_only=True, served=False
)
async def memory_resolve_links(ctx: JobContext, params: ResolveParams) -> ResolveResult:
    """Where each wikilink of `text`, written in note `path`, points (Studio's preview)."""
    return ResolveResult(resolved=await resolve(ctx, params.path, link_targets(params.text)))


def _words(value: object) -> list[str]:
    """A frontmatter value as a list of words: a list, or a comma-separated string."""
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if str(v).strip()]
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return [] if value is None else [str(value)]


class FacetsParams(JobParams["FacetsResult"]):
    paths: list[str] = Field(description="Notes (Markdown files; others are left out)")


class Facets(JobResult):
    name: str = Field(description="The frontmatter's name ('' when it has none)")
    tags: list[str]
    projects: list[str]


class FacetsResult(JobResult):
    notes: dict[str, Facets]


async def _head(ctx: JobContext, path: str, gate: asyncio.Semaphore) -> str:
    async with gate:
        try:
            head = ReadParams(path=path, start_line=1, end_line=HEAD_LINES, start_char=0)
            page = await memory_read(ctx, head)
        except JobError:
            return ""
    return page.content


@JOBS.define(
    "memory_facets", params=FacetsParams, result=FacetsResult, read_only=True, served=False
)
async def memory_facets(ctx: JobContext, params: FacetsParams) -> FacetsResult:
    """The name, tags and projects (frontmatter `project`) of each Markdown note in `paths`,
    what Studio's navigator filters on."""
    gate = asyncio.Semaphore(PARALLEL_READS)
    notes = [p for p in params.paths if p.endswith(".md")]
    heads = await asyncio.gather(*(_head(ctx, p, gate) for p in notes))
    found: dict[str, Facets] = {}
    for path, head in zip(notes, heads, strict=True):
        meta = read_frontmatter(head).meta
        name = meta.get("name")
        found[path] = Facets(
            name=name.strip() if isinstance(name, str) else "",
            tags=_words(meta.get("tags")),
            projects=_words(meta.get("project")),
        )
    return FacetsResult(notes=found)


class InterestsParams(JobParams["InterestsResult"]):
    """No parameters."""


class Evidence(JobResult):
    target: str
    path: str | None


class Topic(JobResult):
    title: str
    reason: str
    keywords: list[str]
    evidence: list[Evidence]


class InterestDay(JobResult):
    date: str
    path: str
    topics: list[Topic]


class InterestsResult(JobResult):
    days: list[InterestDay]


def _topic(raw: dict[str, Any], resolved: dict[str, str | None]) -> Topic:
    evidence = [str(e).strip() for e in raw.get("evidence") or [] if str(e).strip()]
    return Topic(
        title=str(raw.get("title") or ""),
        reason=str(raw.get("reason") or ""),
        keywords=_words(raw.get("keywords")),
        evidence=[Evidence(target=e, path=resolved.get(e)) for e in evidence],
    )


@JOBS.define(
    "memory_interests", params=InterestsParams, result=InterestsResult, read_only=True, served=False
)
async def memory_interests(ctx: JobContext, params: InterestsParams) -> InterestsResult:
    """The dream's interests of the last days (`memory/YYYY-MM-DD/interests.yaml`: topics with
    reason, evidence and keywords), newest first."""
    try:
        listing = await memory_list(ctx, ListParams(folder="memory", recursive=True))
    except JobError:
        return InterestsResult(days=[])
    files = sorted(
        (e.path for e in listing.entries if INTERESTS_FILE.fullmatch(e.path)), reverse=True
    )[:INTEREST_DAYS]
    texts = await asyncio.gather(*(read_whole(reader(ctx), path) for path in files))
    days: list[tuple[str, str, list[dict[str, Any]]]] = []
    for path, (text, _) in zip(files, texts, strict=True):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            continue
        topics = data.get("topics") if isinstance(data, dict) else None
        if isinstance(topics, list):
            kept = [t for t in topics if isinstance(t, dict) and t.get("title")]
            days.append((path.split("/")[1], path, kept))
    targets = {str(e) for _, _, topics in days for t in topics for e in t.get("evidence") or []}
    resolved = await resolve(ctx, "MEMORY.md", targets)
    return InterestsResult(
        days=[
            InterestDay(date=day, path=path, topics=[_topic(t, resolved) for t in topics])
            for day, path, topics in days
        ]
    )
