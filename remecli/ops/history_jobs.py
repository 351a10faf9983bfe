"""Jobs on the versions of memory files: memory_history, memory_restore.

Every write through the memory writer keeps the previous content as a version; a restore is
itself a new version, so it can be undone the same way (`remecli memory history/restore`).
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from remecli.notes.versions import VersionNotFound
from remecli.notes.writer import MemoryWriteError
from remecli.ops.context import JobContext
from remecli.ops.errors import InvalidParams, NotFound
from remecli.ops.file_jobs import current_sha256
from remecli.ops.registry import JOBS, JobParams, JobResult


class HistoryParams(JobParams["HistoryResult"]):
    path: str = Field(min_length=1, description="A memory file, e.g. MEMORY.md")


class VersionInfo(JobResult):
    version: int
    time: str
    bytes: int
    sha256: str
    source: str
    deleted: bool


class HistoryResult(JobResult):
    path: str
    versions: list[VersionInfo] = Field(description="Kept versions, oldest first")


class RestoreParams(JobParams["RestoreResult"]):
    path: str = Field(min_length=1, description="A memory file, e.g. MEMORY.md")
    version: int = Field(ge=1, description="The version to bring back (see memory_history)")


class RestoreResult(JobResult):
    path: str
    restored: int = Field(description="The version brought back")
    version: int | None = Field(description="The new version the restore made")
    bytes: int
    sha256: str = Field(description="SHA-256 of the file now (pass as expected_sha256 next time)")


@JOBS.define("memory_history", params=HistoryParams, result=HistoryResult, read_only=True)
async def memory_history(ctx: JobContext, params: HistoryParams) -> HistoryResult:
    """Earlier versions of a memory file (version, time, bytes, what made the change)."""
    target = ctx.confine(params.path)
    try:
        versions = await asyncio.to_thread(ctx.writer.history, target.path)
    except MemoryWriteError as exc:
        raise InvalidParams(str(exc)) from None
    return HistoryResult(
        path=target.relative, versions=[VersionInfo(**v.to_dict()) for v in versions]
    )


@JOBS.define("memory_restore", params=RestoreParams, result=RestoreResult, read_only=False)
async def memory_restore(ctx: JobContext, params: RestoreParams) -> RestoreResult:
    """Bring back an earlier version of a memory file (see memory_history).

    The restore is itself a new version: the replaced content is kept and can be restored too.
    """
    target = ctx.confine(params.path)

    def restore() -> RestoreResult:
        with ctx.locks.hold(target.path):
            result = ctx.writer.restore(target.path, params.version)
            sha256 = current_sha256(target.path) or ""
        return RestoreResult(
            path=target.relative,
            restored=params.version,
            version=result.version,
            bytes=result.bytes,
            sha256=sha256,
        )

    try:
        return await asyncio.to_thread(restore)
    except VersionNotFound as exc:
        raise NotFound(exc.args[0] if exc.args else str(exc)) from None
    except MemoryWriteError as exc:
        raise InvalidParams(str(exc)) from None


class VersionParams(JobParams["VersionResult"]):
    path: str = Field(min_length=1, description="A memory file, e.g. MEMORY.md")
    version: int = Field(description="A kept version (see memory_history)")


class VersionResult(JobResult):
    path: str
    version: int
    content: str = Field(description="The version's text (bytes that are not UTF-8 replaced)")


@JOBS.define(
    "memory_version", params=VersionParams, result=VersionResult, read_only=True, served=False
)
async def memory_version(ctx: JobContext, params: VersionParams) -> VersionResult:
    """The text of one kept version of a memory file (Studio's diff of two versions)."""
    confined = ctx.confine(params.path)
    relative = ctx.writer.relative(confined.path)
    if relative is None:
        raise NotFound(f"{params.path} has no history; only memory files are versioned")
    try:
        data = await asyncio.to_thread(ctx.writer.store.content, relative, params.version)
    except VersionNotFound as exc:
        raise NotFound(str(exc)) from None
    text = data.decode("utf-8", errors="replace")
    return VersionResult(path=confined.relative, version=params.version, content=text)
