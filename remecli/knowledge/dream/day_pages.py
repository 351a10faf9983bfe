"""The day pages a dream looks at: a card deleted by hand stops being listed at the next dream.

A dream reads the catalog of consolidated cards and the changed cards anyway; the days of cards
gone from disk (dropped from the catalog) and of changed cards get their index block refreshed
(a no-op when it is already right).
"""

from __future__ import annotations

import datetime as dt
import logging

from remecli.knowledge.cards.day_page import refresh_day_page
from remecli.knowledge.dream.state import Catalog, ChangedCard
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriteError, MemoryWriter

log = logging.getLogger(__name__)


def refresh_looked_at_days(
    working_dir: WorkingDir, writer: MemoryWriter, catalog: Catalog, changed: list[ChangedCard]
) -> list[str]:
    """Refresh the pages of days with deleted or changed cards; the pages rewritten."""
    gone = [rel for rel in catalog.cards if not (working_dir.root / rel).is_file()]
    for rel in gone:
        del catalog.cards[rel]
    days = sorted({rel.split("/")[1] for rel in [*gone, *(card.rel for card in changed)]})
    rewritten = []
    for name in days:
        try:
            day = dt.date.fromisoformat(name)
            if refresh_day_page(working_dir, day, writer, reason="dream (day index)"):
                rewritten.append(f"memory/{name}.md")
        except (OSError, ValueError, MemoryWriteError) as exc:
            log.warning("could not refresh the day page of %s: %s", name, exc)
    return rewritten
