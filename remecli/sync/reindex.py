"""After a pull: only the files the sync wrote are read into the search index again."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from remecli.config.search import SearchSettings

if TYPE_CHECKING:
    from remecli.search import MemoryIndex


def reindex_written(
    root: Path, search: SearchSettings, index: MemoryIndex | None, paths: list[str]
) -> int:
    """Sync `paths` (relative) into `index`, or into the memory's index opened for this (a
    one-shot command; new chunks get their vectors at the next search that loads the model);
    the files read again or dropped."""
    if not paths:
        return 0
    if index is not None:
        report = index.sync_blocking(paths=paths)
    else:
        from remecli.search import MemoryIndex  # only when a pull wrote something

        opened = MemoryIndex.open(root, search, embed_on_demand=True)
        try:
            report = opened.sync_blocking(paths=paths, embed=False)
        finally:
            opened.close()
    return report.files_changed + report.files_removed
