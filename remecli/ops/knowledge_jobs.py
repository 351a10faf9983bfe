"""Jobs of the knowledge base: memory_write_card, memory_dream, memory_links.

Cards go through the working dir's memory writer (versioned, secrets redacted), like every other
memory write of the app.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import Field

from remecli.ops.context import JobContext
from remecli.ops.errors import EditConflict, InvalidParams, NotFound
from remecli.ops.registry import JOBS, JobParams, JobResult

MAX_DEPTH = 10  # hops memory_links walks at most (the neighbour limit bounds the answer)


class CardParams(JobParams["CardResult"]):
    name: str = Field(min_length=1, max_length=200, description="The card's topic, a few words")
    description: str = Field(
        min_length=1, max_length=2_000, description="One or two sentences: what the card records"
    )
    content: str = Field(max_length=200_000, description="The card's Markdown body")
    date: dt.date | None = Field(None, description="The day it belongs to (default: today)")
    tags: list[str] = Field(default_factory=list, description="Tags, e.g. ['deploy']")
    project: str | None = Field(
        None,
        max_length=200,
        description="The project it belongs to (default: the current project; '' for none)",
    )


class DreamParams(JobParams["DreamResult"]):
    date: dt.date | None = Field(None, description="Consolidate cards up to this day (today)")


class LinksParams(JobParams["LinksResult"]):
    path: str = Field(min_length=1, description="A note (path or name), e.g. MEMORY.md")
    depth: int = Field(1, ge=1, le=MAX_DEPTH, description="How many hops to walk")
    direction: Literal["in", "out", "both"] = Field("both", description="Which links to follow")
    limit: int = Field(200, ge=1, le=200, description="Most neighbours listed per direction")


class CardResult(JobResult):
    path: str
    created: bool
    version: int | None
    sha256: str = Field(description="SHA-256 of the card now (pass as expected_sha256 to edit it)")
    day_page: str | None = Field(
        description="The day page whose index of cards was rewritten (None: it was unchanged)"
    )


class DreamAction(JobResult):
    action: str
    path: str


class DreamResult(JobResult):
    status: str = Field(description="done, nothing, partial, failed or busy")
    ok: bool = Field(description="True when the dream completed and no unit failed")
    message: str
    actions: list[DreamAction]
    pending: int


class LinkedNote(JobResult):
    path: str
    name: str
    description: str
    depth: int = Field(description="Hops from the note")
    via: str = Field(description="The note it was reached from")


class DanglingLink(JobResult):
    target: str
    line: int


class LinksResult(JobResult):
    path: str
    name: str
    description: str
    out: list[LinkedNote]
    in_: list[LinkedNote] = Field(alias="in", serialization_alias="in")
    dangling: list[DanglingLink]


def _card_text(params: CardParams, day: dt.date, current_project: str) -> str:
    from remecli.knowledge.cards.card import join_frontmatter

    project = current_project if params.project is None else params.project.strip()
    meta = {
        "name": params.name.strip(),
        "description": params.description.strip(),
        "date": f"{day:%Y-%m-%d}",
        **({"project": project} if project else {}),
        "tags": [t.strip() for t in params.tags if t.strip()],
        "source": "memory_write_card",
    }
    body = params.content if params.content.endswith("\n") else params.content + "\n"
    return join_frontmatter(meta, body)


@JOBS.define("memory_write_card", params=CardParams, result=CardResult, read_only=False)
async def memory_write_card(ctx: JobContext, params: CardParams) -> CardResult:
    """Write a topic card `memory/YYYY-MM-DD/<slug>.md` (from another agent, a script, …).

    A card of the same name that day is replaced only if nothing of it would be lost (else use
    memory_edit); the day page's index of cards is regenerated (`day_page`). Its frontmatter names the
    project (`project`, else the current project).
    """
    from remecli.knowledge.cards.card import day_folder, slugify
    from remecli.knowledge.cards.day_page import refresh_day_page
    from remecli.notes.writer import ShrinkRefused
    from remecli.ops.file_jobs import current_sha256

    day = params.date or dt.date.today()
    layout = ctx.memory.layout
    target = day_folder(layout, day) / f"{slugify(params.name)}.md"
    relative = target.relative_to(ctx.root).as_posix()
    text = _card_text(params, day, ctx.memory.settings.project)

    def write() -> CardResult:
        with ctx.locks.hold(target):
            try:
                result = ctx.writer.write(target, text, source="memory_write_card")
            except ShrinkRefused as exc:
                raise EditConflict(str(exc)) from None
            sha256 = current_sha256(target) or ""
        page = layout.daily_file(day)
        rewritten = refresh_day_page(layout, day, ctx.writer, reason="memory_write_card")
        return CardResult(
            path=relative,
            created=result.created,
            version=result.version,
            sha256=sha256,
            day_page=page.relative_to(ctx.root).as_posix() if rewritten else None,
        )

    return await asyncio.to_thread(write)


@JOBS.define("memory_dream", params=DreamParams, result=DreamResult, read_only=False)
async def memory_dream(ctx: JobContext, params: DreamParams) -> DreamResult:
    """Consolidate new and changed topic cards into the digest now (Auto Dream)."""
    result = await ctx.memory.dream(params.date)
    return DreamResult(
        status=result.status,
        ok=result.ok,
        message=result.message,
        actions=[DreamAction(action=o.action, path=o.path) for o in result.outcomes if o.action],
        pending=result.pending,
    )


@JOBS.define("memory_links", params=LinksParams, result=LinksResult, read_only=True)
async def memory_links(ctx: JobContext, params: LinksParams) -> LinksResult:
    """What a note links to and what links to it (names and descriptions; `depth` walks on)."""
    from remecli.notes.links import neighbours
    from remecli.ops.note_jobs import link_graph

    def walk() -> LinksResult:
        with link_graph(ctx) as graph:  # the runtime's, or (search off) one of our own
            path = graph.locate(params.path)
            if path is None:
                raise NotFound(
                    f"no note {params.path!r}; use memory_list or memory_search to find one"
                )
            graph.check(path)  # its own links as on disk now, even before the watcher's burst
            return LinksResult.model_validate(
                neighbours(graph, path, params.depth, params.direction, limit=params.limit)
            )

    return await asyncio.to_thread(walk)


def card_files(ctx: JobContext, arguments: Mapping[str, object]) -> list[str]:
    """The files memory_write_card writes for these JSON arguments, before it runs (a surface
    checks them against a path-confined token): the card, then its day page (the job rewrites
    the day's index of cards); refused: a name with no slug."""
    from remecli.knowledge.cards.card import day_folder, slugify

    name = str(arguments.get("name") or "")
    slug = slugify(name)
    if name.strip() and not slug:
        raise InvalidParams(
            f"card name {name!r} has no letters or digits to make a file name; name the topic "
            "in words"
        )
    raw_day = arguments.get("date")
    try:
        day = dt.date.fromisoformat(str(raw_day)) if raw_day else dt.date.today()
    except ValueError:
        return []  # the job refuses the date itself
    root, layout = ctx.root, ctx.memory.layout
    card: Path = day_folder(layout, day) / f"{slug}.md"
    page: Path = layout.daily_file(day)
    return [card.relative_to(root).as_posix(), page.relative_to(root).as_posix()]
