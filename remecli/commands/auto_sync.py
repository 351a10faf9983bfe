"""Sync over git while a chat runs (`sync.auto: true` and `remecli sync init` done): at start,
after a card or a dream is written, and every `sync.interval_minutes`, always between replies.

Each sync is the memory_sync operation; the outcome reaches the front-end as a `SyncStatus`
(the status line) and, when something came in or needs the user (a conflict, a file refused for
a secret, an unreachable remote), as a notice. The git work runs in a thread and never holds a
reply; a chat that ends mid-sync leaves it to the next one (a sync is safe to kill).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from remecli.agent import events as ev

if TYPE_CHECKING:
    from remecli.commands.session_events import SessionEvent
    from remecli.config.settings import Settings
    from remecli.ops.host import MemoryHost

log = logging.getLogger(__name__)
IDLE_POLL = 1.0  # seconds between looks for a pause between replies


class ChatAutoSync:
    """One chat's automatic sync; `poke()` asks for a sync soon (a card or dream was written)."""

    def __init__(
        self,
        settings: Settings,
        runtime: Callable[[], MemoryHost],
        busy: Callable[[], bool],
        emit: Callable[[SessionEvent], None],
    ) -> None:
        self.settings = settings
        self._runtime = runtime  # the chat's memory runtime now (a /resume replaces it)
        self._busy = busy
        self._emit = emit
        self._wake = asyncio.Event()

    def poke(self) -> None:
        """Sync at the next pause (something was written that other machines should see)."""
        self._wake.set()

    async def run(self) -> None:
        """Sync now, then whenever poked or every interval, between replies, until cancelled."""
        from remecli.ops import JobRunner
        from remecli.ops.sync_jobs import repo_of

        if not self.settings.sync.auto:
            return
        if not repo_of(JobRunner(self._runtime()).context).exists:
            log.info("sync.auto is on but sync is not set up (`remecli sync init REMOTE`)")
            return
        while True:
            while self._busy():
                await asyncio.sleep(IDLE_POLL)
            self._wake.clear()
            await self.sync_once()
            try:
                await asyncio.wait_for(
                    self._wake.wait(), timeout=self.settings.sync.interval_minutes * 60
                )
            except TimeoutError:
                pass

    async def sync_once(self) -> None:
        """One sync; its outcome on the stream."""
        from remecli.ops import JobError, JobRunner
        from remecli.ops.registry import NoParams
        from remecli.ops.sync_jobs import memory_sync

        try:
            result = await JobRunner(self._runtime()).call(memory_sync, NoParams())
        except JobError as exc:
            self._emit(ev.SyncStatus("sync failed", trouble=True))
            self._emit(ev.Notice(f"Sync: {exc}", kind="warning"))
            return
        except Exception:  # a bug must not end the chat
            log.exception("automatic sync failed")
            self._emit(ev.SyncStatus("sync failed", trouble=True))
            return
        trouble = bool(result.conflicts or result.refused) or result.outcome != "ok"
        if result.conflicts:
            count = len(result.conflicts)
            status = f"sync: {count} conflict{'s' if count != 1 else ''}"
        elif trouble:
            status = f"sync: {result.outcome}"
        else:
            status = f"synced {dt.datetime.now():%H:%M}"
        self._emit(ev.SyncStatus(status, trouble=trouble))
        if trouble or result.pulled:
            # "info", never "memory": a memory notice asks for a sync (see ChatSession.emit)
            self._emit(ev.Notice(result.message, kind="warning" if trouble else "info"))
