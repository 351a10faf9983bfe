"""What `remecli ingest` does around memory_ingest, as jobs (`served=False`: they read files
anywhere on this machine, which a remote caller must never make the server do): place files
into `resource/`, prune the cards whose resource is gone, and what the model gate says.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import Field

from remecli.knowledge.resources.place import Placed, ResourcePlacer
from remecli.ops.context import JobContext
from remecli.ops.registry import JOBS, JobParams, JobResult
from remecli.ops.resource_job import GoneCard


class PlaceParams(JobParams["PlaceResult"]):
    paths: list[str] = Field(description="Files or folders, anywhere; none: every resource")
    replace: bool = Field(description="A different file of the same name replaces the one there")


class PlacedFile(JobResult):
    source: str = Field(description="As named (a folder's file: its path)")
    rel: str | None = Field(description="Its resource/<file> to ingest; None: not placed")
    problem: Literal["usage", "refused", "skipped"] | None = Field(
        description="usage: the PATH itself is wrong"
    )
    message: str


class PlaceResult(JobResult):
    placed: list[PlacedFile]


def _placed(item: Placed) -> PlacedFile:
    return PlacedFile(source=item.source, rel=item.rel, problem=item.problem, message=item.message)


@JOBS.define(
    "memory_place_resources", params=PlaceParams, result=PlaceResult, read_only=False, served=False
)
async def memory_place_resources(ctx: JobContext, params: PlaceParams) -> PlaceResult:
    """Copy files and folders into resource/ (a file already there stays where it is); with no
    paths, every resource there and the files remecli will not read."""
    cards = ctx.memory.resources
    if params.paths:
        placer = ResourcePlacer(cards, replace=params.replace)
        found = [p for raw in params.paths for p in await asyncio.to_thread(placer.place, raw)]
    else:
        found = [Placed(rel, rel) for rel in cards.resources()]
        found += [
            Placed(rel, problem="skipped", message=message) for rel, message in cards.skipped()
        ]
    return PlaceResult(placed=[_placed(item) for item in found])


class PruneParams(JobParams["PruneResult"]):
    remove: bool = Field(description="Remove them (kept in history); false: only list them")


class PruneResult(JobResult):
    orphans: list[GoneCard] = Field(description="Cards whose resource file is gone")


@JOBS.define(
    "memory_prune_resources", params=PruneParams, result=PruneResult, read_only=False, served=False
)
async def memory_prune_resources(ctx: JobContext, params: PruneParams) -> PruneResult:
    """The cards whose resource is gone; with `remove`, removed through the memory writer."""
    orphans = await asyncio.to_thread(ctx.memory.resources.prune, remove=params.remove)
    return PruneResult(orphans=[GoneCard(card=o.card, resource=o.resource) for o in orphans])


class RefusalParams(JobParams["RefusalResult"]):
    work: str = Field(description="What would call the model, e.g. 'resource cards'")


class RefusalResult(JobResult):
    line: str | None = Field(description="None: a model is there; else what to do (once)")


@JOBS.define(
    "memory_model_refusal", params=RefusalParams, result=RefusalResult, read_only=True, served=False
)
async def memory_model_refusal(ctx: JobContext, params: RefusalParams) -> RefusalResult:
    """Why `work` cannot call the model (no model configured) and what to do; said once a
    process ('' after), None when it can."""
    return RefusalResult(line=ctx.memory.resources.gate.refusal(params.work))
