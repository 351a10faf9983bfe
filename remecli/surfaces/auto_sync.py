"""Automatic sync in `remecli serve` (`sync.auto: true`): at start, then every
`sync.interval_minutes`, the memory_sync operation in the background. It never blocks a reply:
the git work runs in a thread and holds each memory file's lock only while that file is
written; a failed or offline sync is logged and tried again at the next tick."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from remecli.ops import JobError, JobRunner
from remecli.ops.registry import NoParams

log = logging.getLogger(__name__)


async def sync_now(runner: JobRunner) -> str:
    """One sync through the runner; its one-line outcome (logged)."""
    from remecli.ops.sync_jobs import memory_sync

    try:
        result = await runner.call(memory_sync, NoParams())
    except JobError as exc:
        log.warning("automatic sync: %s", exc)
        return str(exc)
    log.info("automatic sync: %s", result.message)
    return result.message


async def sync_every(runner: JobRunner, minutes: float) -> None:
    """Sync now and then every `minutes` until cancelled."""
    while True:
        try:
            await sync_now(runner)
        except Exception:  # a bug must not end the loop (nor the server)
            log.exception("automatic sync failed")
        await asyncio.sleep(minutes * 60)


def start_auto_sync(runner: JobRunner) -> asyncio.Task[None] | None:
    """The background sync of a writing server whose memory has sync set up and `sync.auto`
    on (None otherwise)."""
    from remecli.ops.sync_jobs import repo_of

    settings = runner.memory.settings.sync
    if runner.read_only or not settings.auto or not repo_of(runner.context).exists:
        return None
    return asyncio.create_task(sync_every(runner, settings.interval_minutes))


async def stop_auto_sync(task: asyncio.Task[None] | None) -> None:
    """Cancel the background sync (a sync in its thread finishes its files first)."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
