"""The runtime's side of Auto Resource: catch up at start, then follow `resource/` as it changes.

At start every resource is checked (unchanged files cost a hash, no model call) while a
watcher (the search package's debounced `watch_and_sync`, on the resource folder only) ingests
each file written and reports cards whose file was deleted to `ResourceCards.on_gone`, which asks
the user (the TUI's hook) before anything is removed.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import PurePosixPath

from remecli.config.privacy import private_dirs
from remecli.knowledge.resources.cards import RESOURCE_FOLDER, IngestOutcome, ResourceCards
from remecli.knowledge.resources.extract import is_temp_name

log = logging.getLogger(__name__)


def wanted(rel: str) -> bool:
    """True for a path (relative to `resource/`) the watcher should report: any visible file (a
    resource becomes a card, another type is reported as skipped) or folder (created, its files
    are listed; deleted, its cards reported)."""
    if not rel:
        return False
    path = PurePosixPath(rel)
    return not any(part.startswith(".") for part in path.parts) and not is_temp_name(path.name)


class ResourceWatcher:
    """Keeps the resource cards current while the runtime runs."""

    def __init__(self, cards: ResourceCards, debounce_ms: int) -> None:
        self.cards = cards
        self.debounce_ms = debounce_ms
        self.outcomes: list[IngestOutcome] = []  # what was done, newest last (bounded)
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Catch up and watch in the background (needs a running event loop)."""
        if self._task is None or self._task.done():
            self._stop = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        from remecli.search.watcher import watch_and_sync

        private_dirs(self.cards.folder)
        watching = asyncio.create_task(
            watch_and_sync(self.cards.folder, wanted, self._changed, self._stop, self.debounce_ms)
        )
        try:
            await asyncio.sleep(0)  # the watch is set up before the catch-up lists the folder
            self._keep(await self.cards.sync())  # files dropped meanwhile: the watcher has them
            await watching
        except asyncio.CancelledError:
            watching.cancel()
            raise
        except Exception:
            log.exception("the resource watcher stopped; `remecli ingest` still works")

    async def _changed(self, paths: set[str]) -> None:
        rels = {f"{RESOURCE_FOLDER}/{path}" for path in paths if path}
        self._keep(await self.cards.sync(rels))

    def _keep(self, outcomes: list[IngestOutcome]) -> None:
        for outcome in outcomes:
            if outcome.status != "unchanged":
                bad = ("skipped", "refused", "waiting")  # waiting: no model configured
                level = logging.WARNING if outcome.status in bad else logging.INFO
                log.log(
                    level, "resource %s: %s %s", outcome.resource, outcome.status, outcome.message
                )
        self.outcomes = (self.outcomes + outcomes)[-200:]

    async def stop(self) -> None:
        """Stop watching; an ingest in flight is cancelled (its card is redone next time)."""
        self._stop.set()
        task, self._task = self._task, None
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=2)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
