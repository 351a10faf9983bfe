"""Syncing a `MemoryIndex`: which files it reads, the incremental sync (keyword side committed
first, then the vectors: `EmbeddingPasses`) and the rebuild from scratch."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from remecli.search.embedding_pass import EmbeddingPasses
from remecli.search.parts import CORRUPTION_ERRORS as DAMAGE
from remecli.search.sync import Progress
from remecli.search.types import SyncReport


class IndexSync(EmbeddingPasses):
    """The sync side of `MemoryIndex` (set up by its constructor)."""

    _needs_full_sync: bool  # the next sync reads every file (after damage, a full disk)

    def memory_files(self) -> dict[str, Path]:
        """The Markdown notes to index (relative posix path → absolute path)."""
        return self.syncer.note_files()

    def transcript_files(self) -> dict[str, Path]:
        """The transcripts to index (relative posix path → absolute path)."""
        return self.syncer.transcript_files()

    def sync_blocking(
        self,
        progress: Progress | None = None,
        *,
        paths: Iterable[str] | None = None,
        embed: bool = True,
    ) -> SyncReport:
        """Bring the index up to date (only `paths`, relative to the working dir, if given, and
        the files `note_written` named): the keyword side committed first, then (`embed`) the
        vectors, without the write lock (`EmbeddingPasses`)."""
        only = None if paths is None or self._needs_full_sync else set(paths)
        with self._write_lock:
            if self.closed:  # a late sync (a write's, the watcher's): the files stay announced
                return SyncReport()
            try:
                if only is not None and self._nothing_to_read(only):
                    report = SyncReport()
                else:
                    report = self._sync_files(progress, only)
            except DAMAGE as exc:
                if self.space.full(exc):  # the index stays as it was; the next sync reads all
                    self._needs_full_sync = True
                    return SyncReport()
                self._rebuild(f"search index at {self.folder} failed ({exc}); rebuilding it")
                report = self._sync_files(progress, None)
            self._needs_full_sync = False
            self.space.back()
        if embed:
            self._embed(report, progress)
        return report

    def _sync_files(self, progress: Progress | None, only: set[str] | None) -> SyncReport:
        """Read changed files into the parts as the one writer of the folder; announce it."""
        with self.shared.writer():
            upto = self._writes  # the writes this sync reads (a later one may be read too)
            written = self._take_written()  # what was written while we waited for the lock
            self.follow_others()
            only = None if only is None else only | written
            report = self.syncer.sync(self.parts, progress, only, embed=False)
            self._writes_read = max(self._writes_read, upto)
            if report.files_changed or report.files_removed:
                self._seen = self.shared.bump()
        return report

    async def sync(
        self, progress: Progress | None = None, *, paths: Iterable[str] | None = None
    ) -> SyncReport:
        """Bring the index up to date: only changed files re-read, only new chunks embedded."""
        return await asyncio.to_thread(self.sync_blocking, progress, paths=paths)

    def reindex_blocking(self, progress: Progress | None = None) -> SyncReport:
        """Rebuild the index from scratch (embedding cache kept), vectors included."""
        self._embedding_wanted.set()  # an explicit rebuild loads the model
        with self._write_lock:
            if self.closed:
                return SyncReport()
            with self.shared.writer():
                self._replace_parts()
                self._seen = self.shared.bump(rebuilt=True)
        return self.sync_blocking(progress)

    async def reindex(self, progress: Progress | None = None) -> SyncReport:
        """Rebuild the index from scratch, off the event loop."""
        return await asyncio.to_thread(self.reindex_blocking, progress)
