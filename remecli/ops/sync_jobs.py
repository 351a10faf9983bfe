"""memory_sync and memory_sync_status: the memory synced with its git remote (`remecli.sync`).

Setting the remote up is not an operation (`remecli sync init REMOTE` on the machine itself):
a client of `remecli serve` or MCP must never be able to point the memory at a host of its
choosing and push it there.
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from remecli.ops.context import JobContext
from remecli.ops.errors import JobError, Unavailable
from remecli.ops.registry import JOBS, JobParams, JobResult, NoParams
from remecli.sync.engine import SyncBusy, sync_once
from remecli.sync.git import GitMissing
from remecli.sync.reindex import reindex_written
from remecli.sync.repo import NotSetUp, SyncRepo, machine_name
from remecli.sync.state import SyncState, open_conflicts


class SyncNotSetUp(JobError, status=409, code="sync_not_set_up"):
    """`remecli sync init REMOTE` was never run for this memory."""


class SyncRunning(JobError, status=409, code="sync_busy"):
    """Another sync of this memory is running."""


class ConflictInfo(JobResult):
    path: str
    detail: str = Field(description="Why, and how to resolve it")


class RefusedInfo(JobResult):
    path: str
    kinds: list[str] = Field(description="The kinds of secret the redactor finds in it")


class SyncResult(JobResult):
    outcome: str = Field(description="ok, conflicts, refused, offline, error, or never")
    message: str = Field(description="What happened, in one line")
    remote: str
    time: str = Field(description="When the last sync ended (ISO; '' never)")
    pulled: int = Field(description="Files the sync wrote here")
    pushed: int = Field(description="Files this machine sent")
    reindexed: int = Field(
        description="Files read into the open search index again (0 where none is open: the "
        "next process that opens it reads them)"
    )
    conflicts: list[ConflictInfo]
    refused: list[RefusedInfo] = Field(description="Files not pushed: they hold a secret")


def repo_of(ctx: JobContext) -> SyncRepo:
    """The sync repository of the job's working dir."""
    return SyncRepo(ctx.root, machine_name(ctx.memory.settings.sync.machine))


def _result(state: SyncState, remote: str, reindexed: int = 0) -> SyncResult:
    return SyncResult(
        outcome=state.outcome,
        message=state.message,
        remote=remote,
        time=state.time,
        pulled=state.pulled,
        pushed=state.pushed,
        reindexed=reindexed,
        conflicts=[ConflictInfo(path=c.path, detail=c.detail) for c in state.conflicts],
        refused=[RefusedInfo(path=r.path, kinds=r.kinds) for r in state.refused],
    )


@JOBS.define("memory_sync", params=NoParams, result=SyncResult, read_only=False)
async def memory_sync(ctx: JobContext, params: NoParams) -> SyncResult:
    """Sync the memory with its git remote: commit what changed here, merge what the other
    machines pushed (tags and sources as sets, MEMORY.md by line; what cannot merge is kept
    from both sides and listed as a conflict), push. A file holding a secret is not pushed."""
    repo = repo_of(ctx)
    try:
        report = await asyncio.to_thread(sync_once, repo, ctx.memory.layout, ctx.writer)
    except NotSetUp as exc:
        raise SyncNotSetUp(str(exc)) from None
    except SyncBusy as exc:
        raise SyncRunning(str(exc)) from None
    except GitMissing as exc:
        raise Unavailable(str(exc)) from None
    reindexed = await asyncio.to_thread(reindex_written, ctx.memory.index, report.written)
    return _result(report.state, report.remote, reindexed)


class SyncStatusParams(JobParams[SyncResult]):
    """No parameters."""


@JOBS.define("memory_sync_status", params=SyncStatusParams, result=SyncResult, read_only=True)
async def memory_sync_status(ctx: JobContext, params: SyncStatusParams) -> SyncResult:
    """The last sync of the memory (when, what came in and went out) and the conflicts and
    refused files still waiting for the user."""
    repo = repo_of(ctx)
    if not repo.exists:
        raise SyncNotSetUp("sync is not set up for this memory: run `remecli sync init REMOTE`")

    def status() -> SyncResult:
        state = SyncState.load(repo.state_file)
        state.conflicts = open_conflicts(ctx.root, [c.path for c in state.conflicts])
        return _result(state, repo.remote_url())

    return await asyncio.to_thread(status)
