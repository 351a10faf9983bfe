"""A full disk while the index syncs is not damage: nothing is deleted or rebuilt over it, the
sync that failed leaves the index as it was, the log says so once, and the next sync after
space returns reads every file again (what was missed meanwhile is indexed then)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from remecli.config.disk_full import disk_full_text, is_disk_full, no_space_left
from remecli.search.parts import CORRUPTION_ERRORS

log = logging.getLogger("remecli.search.index")


class SpaceWait:
    """Whether the index of `folder` waits for space, and the one line that says so."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.waiting = False

    def full(self, exc: BaseException) -> bool:
        """True when `exc` comes from a full disk (said once per episode), not from damage."""
        if not (is_disk_full(exc) or no_space_left(self.folder)):
            return False
        if not self.waiting:
            self.waiting = True
            log.warning(
                "%s: the search index waits for space; notes changed meanwhile are indexed "
                "once space is freed (%s)",
                disk_full_text(self.folder),
                exc,
            )
        return True

    def back(self) -> None:
        """A sync went through: say so if the index waited and space is back (a sync with
        nothing to write goes through on a full disk too)."""
        if self.waiting and not no_space_left(self.folder):
            self.waiting = False
            log.warning("space is back: the search index is up to date again")

    @contextmanager
    def waited_out(self) -> Iterator[None]:
        """Run a step that writes (embedding); on a full disk it waits for the next sync."""
        try:
            yield
        except CORRUPTION_ERRORS as exc:
            if not self.full(exc):
                raise
