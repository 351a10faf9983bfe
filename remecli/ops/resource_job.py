"""memory_ingest: turn a file (or a folder of files) under `resource/` into source-linked cards.

Only files already inside `<working_dir>/resource/` are ingested (a remote caller cannot make the
server read anything else); `notes.md` means `resource/notes.md`. The file is only read.
"""

from __future__ import annotations

import asyncio
from pathlib import PurePosixPath

from pydantic import Field

from remecli.knowledge.resources.cards import IngestOutcome as IngestedFile
from remecli.ops.context import JobContext
from remecli.ops.errors import InvalidParams, NotFound
from remecli.ops.registry import JOBS, JobParams, JobResult

FOLDER = "resource"


class IngestParams(JobParams["IngestResult"]):
    path: str = Field(
        min_length=1,
        description="A file or folder under resource/, e.g. resource/notes.md (or notes.md); "
        "'resource' for all",
    )


class IngestOutcome(JobResult):
    resource: str
    status: str
    card: str | None
    message: str


class GoneCard(JobResult):
    card: str
    resource: str


class IngestResult(JobResult):
    ok: bool = Field(
        description="False when a file failed, was refused or waits for a model (see its message)"
    )
    outcomes: list[IngestOutcome]
    gone: list[GoneCard] = Field(description="Cards whose resource file no longer exists")


def _resources(ctx: JobContext, raw: str) -> tuple[list[str], list[tuple[str, str]]]:
    """(the resources `raw` names, (file, why) of the files in a named folder remecli will
    not read)."""
    text = raw.strip()
    posix = PurePosixPath(text)
    inside = posix.parts[:1] == (FOLDER,) or posix.is_absolute() or text.startswith("~")
    relative = text if inside else f"{FOLDER}/{text}"  # confine refuses absolute paths
    target = ctx.confine(relative)  # and '..', dotfiles, links out of the working dir
    named = PurePosixPath(relative).as_posix()  # the entry under resource/ (a link stays one)
    if PurePosixPath(named).parts[:1] != (FOLDER,):
        raise InvalidParams(f"{raw!r} is not under {FOLDER}/; put the file into {FOLDER}/ first")
    if target.path.is_dir():
        prefix = named.rstrip("/") + "/"
        # the watcher's own listing: supported names, no dotfiles, no links out of the working dir
        cards = ctx.memory.resources
        return [r for r in cards.resources() if r.startswith(prefix)], cards.skipped(named)
    if not target.path.is_file():
        raise NotFound(f"no file {named}; put it into {FOLDER}/ first")
    return [named], []


@JOBS.define("memory_ingest", params=IngestParams, result=IngestResult, read_only=False)
async def memory_ingest(ctx: JobContext, params: IngestParams) -> IngestResult:
    """Summarize a file in resource/ (Markdown, text, source code, JSON/JSONL, CSV, YAML, HTML,
    PDF) into its card.

    One card per file (memory/YYYY-MM-DD/<slug>.md, source_resource: [[resource/<file>]]);
    a changed file updates its card, an unchanged one is left alone; in a folder, a file of a type
    remecli cannot read is reported as skipped. Lists cards whose file is gone.
    """
    rels, unreadable = await asyncio.to_thread(_resources, ctx, params.path)
    outcomes = [await ctx.memory.resources.ingest(rel) for rel in rels]
    outcomes += [IngestedFile(rel, "skipped", message=message) for rel, message in unreadable]
    gone = await asyncio.to_thread(ctx.memory.resources.orphans)
    return IngestResult(
        ok=not any(outcome.status in ("failed", "refused", "waiting") for outcome in outcomes),
        outcomes=[IngestOutcome(**outcome.to_dict()) for outcome in outcomes],
        gone=[GoneCard(card=o.card, resource=o.resource) for o in gone],
    )
