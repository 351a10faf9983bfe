"""After a pull: only the files the sync wrote are read into the search index again.

Only where an index is open (`remecli serve`, the chat): it reads them now. A process without
one (`remecli sync` on the command line) leaves them: every process that opens the index syncs
it with the files first (only the changed ones are read), so opening it here would only load
the search stack and the token encoding (~2 s) to do what the next user of the index does
anyway."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from remecli.search import MemoryIndex


def reindex_written(index: MemoryIndex | None, paths: list[str]) -> int:
    """Sync `paths` (relative) into the open `index`; the files read again or dropped (0 with
    no index open, or nothing written)."""
    if not paths or index is None:
        return 0
    report = index.sync_blocking(paths=paths)
    return report.files_changed + report.files_removed
