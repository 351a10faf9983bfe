"""Jobs of dream review: memory_dream_runs, memory_dream_run, memory_dream_revert,
memory_dream_approve, memory_dream_reject.

Each dream run is a changeset (`knowledge.dream.changesets`); these jobs list and show runs
(per node: action, sources, version ids and a diff), revert a node or a whole run through the
version history, and decide runs that wait for review (`memory.dream.review: true`).
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Callable

from pydantic import Field

from remecli.knowledge.dream import changesets
from remecli.knowledge.dream.changesets import Changeset, NodeChange
from remecli.knowledge.dream.review import NodeResult, ReviewError, decide, revert
from remecli.knowledge.dream.state import DreamBusy
from remecli.notes.claims import newly_superseded
from remecli.ops.context import JobContext
from remecli.ops.errors import EditConflict, NotFound
from remecli.ops.registry import JOBS, JobParams, JobResult

OUTCOME = (
    "What became of the run: its status, or 'reverted' (every node it changed was reverted), "
    "'partly reverted', 'failed' (no unit succeeded)"
)
RUN_ID = Field(pattern=r"^\d{8}T\d{6}-[0-9a-f]{4}$", description="A run id (memory_dream_runs)")


class RunsParams(JobParams["RunsResult"]):
    limit: int = Field(20, ge=1, le=200, description="The most runs to list, newest first")


class RunParams(JobParams["RunResult"]):
    run_id: str = RUN_ID


class ApproveParams(JobParams["DecisionResult"]):
    run_id: str = RUN_ID


class RejectParams(JobParams["DecisionResult"]):
    run_id: str = RUN_ID


class RevertParams(JobParams["DecisionResult"]):
    run_id: str = RUN_ID
    path: str | None = Field(None, description="One node of the run (default: every node)")


class RunSummary(JobResult):
    id: str
    time: str
    status: str = Field(description="applied, pending, approved or rejected")
    outcome: str = Field(description=OUTCOME)
    changes: str = Field(
        description="What it changed in the digest: '3 nodes added, 1 corrected', 'nothing new'"
    )
    message: str
    units: int
    nodes: list[str] = Field(description="'ACTION path' per node the run changed")


class RunsResult(JobResult):
    runs: list[RunSummary]


class UnitInfo(JobResult):
    name: str
    bucket: str
    summary: str
    cards: list[str]
    ok: bool
    action: str
    path: str
    detail: str


class Supersession(JobResult):
    claim: str = Field(description="The claim that stopped being true (struck in the node)")
    replaced_by: str = Field(description="What replaced it ('' when not said)")
    since: str = Field(description="When it became true, YYYY-MM-DD ('' when not known)")
    until: str = Field(description="When it stopped being true, YYYY-MM-DD")


class NodeInfo(JobResult):
    path: str
    action: str
    unit: str
    sources: list[str] = Field(description="The cards the node rests on")
    before_version: int | None = Field(description="The history's version before the run")
    after_version: int | None = Field(description="The version the run wrote")
    diff: str = Field(description="Unified diff of the node, before → after")
    supersessions: list[Supersession] = Field(
        default_factory=list, description="The claims this run superseded (old → new, dates)"
    )
    reverted: bool
    reverted_version: int | None = Field(description="The version the revert made")


class RunResult(JobResult):
    id: str
    time: str
    status: str
    outcome: str = Field(description=OUTCOME)
    message: str
    units: list[UnitInfo]
    nodes: list[NodeInfo]


class NodeOutcome(JobResult):
    path: str
    version: int | None = Field(description="The version this made in the node's history")
    error: str = Field(description="Why the node was left as it is ('' when done)")
    undo: int | None = Field(
        None, description="After a revert: memory_restore this version to undo it"
    )


class DecisionResult(JobResult):
    id: str
    status: str
    nodes: list[NodeOutcome]
    message: str


def _summary(run: Changeset) -> RunSummary:
    return RunSummary(
        id=run.id,
        time=run.time,
        status=run.status,
        outcome=run.outcome(),
        changes=run.changes(),
        message=run.message,
        units=len(run.units),
        nodes=[f"{n.action} {n.path}" for n in run.nodes],
    )


def node_diff(node: NodeChange) -> str:
    """The node's unified diff, before → after ('' when unchanged)."""
    lines = difflib.unified_diff(
        (node.before or "").splitlines(keepends=True),
        (node.after or "").splitlines(keepends=True),
        fromfile=f"{node.path} (before)" if node.before is not None else "/dev/null",
        tofile=f"{node.path} (after)" if node.after is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _node_info(node: NodeChange) -> NodeInfo:
    reverted = node.reverted or {}
    return NodeInfo(
        path=node.path,
        action=node.action,
        unit=node.unit,
        sources=node.sources,
        before_version=node.before_version,
        after_version=node.after_version,
        diff=node_diff(node),
        supersessions=[
            Supersession(
                claim=claim.text,
                replaced_by=claim.replaced_by,
                since=claim.since.isoformat() if claim.since else "",
                until=claim.until.isoformat() if claim.until else "",
            )
            for claim in newly_superseded(node.before, node.after)
        ],
        reverted=node.reverted is not None,
        reverted_version=reverted.get("version"),
    )


def _load(ctx: JobContext, run_id: str) -> Changeset:
    run = changesets.load(ctx.memory.layout, run_id)
    if run is None:
        raise NotFound(f"no dream run {run_id!r}; memory_dream_runs lists the runs")
    return run


def _decision(ctx: JobContext, run_id: str, results: list[NodeResult], verb: str) -> DecisionResult:
    run = _load(ctx, run_id)
    nodes = [
        NodeOutcome(path=r.path, version=r.version, error=r.error, undo=r.undo) for r in results
    ]
    done = [n for n in nodes if not n.error]
    left = [n for n in nodes if n.error]
    message = f"Dream run {run_id}: {verb} {len(done)} node(s)"
    if left:
        message += f"; {len(left)} left as they are ({left[0].error})"
    return DecisionResult(id=run_id, status=run.status, nodes=nodes, message=message + ".")


async def _guarded(work: Callable[[], list[NodeResult]]) -> list[NodeResult]:
    try:
        return await asyncio.to_thread(work)
    except ReviewError as exc:
        raise EditConflict(str(exc)) from None
    except DreamBusy:
        raise EditConflict(
            "a dream is running on this working dir; try again when it is done"
        ) from None


@JOBS.define("memory_dream_runs", params=RunsParams, result=RunsResult, read_only=True)
async def memory_dream_runs(ctx: JobContext, params: RunsParams) -> RunsResult:
    """The latest dream runs, newest first: id, time, status (applied, pending, approved,
    rejected), message and the action per node."""
    runs = await asyncio.to_thread(changesets.list_runs, ctx.memory.layout, params.limit)
    return RunsResult(runs=[_summary(run) for run in runs])


@JOBS.define("memory_dream_run", params=RunParams, result=RunResult, read_only=True)
async def memory_dream_run(ctx: JobContext, params: RunParams) -> RunResult:
    """One dream run as a changeset: its units and, per node, the action (CREATE, CORROBORATE,
    REFINE, CORRECT), the cards it rests on, the version ids before and after, and a diff."""
    run = await asyncio.to_thread(_load, ctx, params.run_id)
    return RunResult(
        id=run.id,
        time=run.time,
        status=run.status,
        outcome=run.outcome(),
        message=run.message,
        units=[UnitInfo(**vars(u)) for u in run.units],
        nodes=[_node_info(n) for n in run.nodes],
    )


@JOBS.define("memory_dream_revert", params=RevertParams, result=DecisionResult, read_only=False)
async def memory_dream_revert(ctx: JobContext, params: RevertParams) -> DecisionResult:
    """Put back what one node (`path`) or every node of a dream run held before the run,
    through the version history. Each revert is a new version: memory_restore undoes it."""
    layout, writer = ctx.memory.layout, ctx.writer
    results = await _guarded(lambda: revert(layout, writer, params.run_id, params.path))
    return _decision(ctx, params.run_id, results, "reverted")


@JOBS.define("memory_dream_approve", params=ApproveParams, result=DecisionResult, read_only=False)
async def memory_dream_approve(ctx: JobContext, params: ApproveParams) -> DecisionResult:
    """Write the changes of a dream run that waits for review (memory.dream.review: true);
    a node changed since the run is left and reported."""
    layout, writer = ctx.memory.layout, ctx.writer
    results = await _guarded(lambda: decide(layout, writer, params.run_id, approve=True))
    return _decision(ctx, params.run_id, results, "wrote")


@JOBS.define("memory_dream_reject", params=RejectParams, result=DecisionResult, read_only=False)
async def memory_dream_reject(ctx: JobContext, params: RejectParams) -> DecisionResult:
    """Drop the changes of a dream run that waits for review; the digest stays as it is."""
    layout, writer = ctx.memory.layout, ctx.writer
    results = await _guarded(lambda: decide(layout, writer, params.run_id, approve=False))
    return _decision(ctx, params.run_id, results, "rejected")
