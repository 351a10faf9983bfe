"""Watching a `MemoryIndex`'s working dir: which paths it follows, and syncing the files that
change (`watcher.Watch` debounces the bursts)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from remecli.search.index_parts import INDEX_FOLDER
from remecli.search.index_sync import IndexSync
from remecli.search.watcher import Watch


class IndexWatch(IndexSync):
    """The watching side of `MemoryIndex` (set up by its constructor)."""

    watch: Watch  # `watch.running()`: whether changes on disk are followed
    watched: Callable[[str], bool]  # what the watcher reports

    def is_indexed_path(self, rel: str) -> bool:
        """True for a relative path a sync would look at (a note or a transcript)."""
        if not rel or rel.split("/", 1)[0] == INDEX_FOLDER:
            return False
        return self.syncer.is_note(rel) or (
            self.settings.transcripts and self.syncer.is_transcript(rel)
        )

    def start_watching(
        self,
        debounce_ms: int | None = None,
        on_changed: Callable[[set[str]], Awaitable[object]] | None = None,
    ) -> None:
        """Watch the working dir and sync changed files (needs a running event loop); first
        `on_changed(paths)` lets other derived state (the link graph) follow the same burst."""

        async def sync_changed(changed: set[str]) -> None:
            if on_changed is not None:  # the quick one first (the index may embed for long)
                await on_changed(changed)
            await self.sync(paths=changed)

        debounce = debounce_ms or self.settings.watch_debounce_ms
        self.watch.start(self.working_dir, self.watched, sync_changed, debounce)

    async def stop(self) -> None:
        """Stop watching (waits for a sync in progress to finish)."""
        await self.watch.stop()
