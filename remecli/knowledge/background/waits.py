"""Summaries waiting out a full disk (kept in memory by `SummaryTasks`): ones whose record
could not be written (never run unrecorded: a half-written summary would be written again by
its retry) and recorded ones that failed for lack of space. Once space is back each is handed
back exactly once to be run."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from remecli.config.disk_full import disk_full_text, is_disk_full, no_space_left
from remecli.knowledge.background.records import (
    PendingRecord,
    _load_record,
    _parse_date,
    _write_record,
)

if TYPE_CHECKING:
    from remecli.llm.conversation_state import ContextMessage

Waiting = tuple[
    str, list["ContextMessage"], dt.date, PendingRecord
]  # task id, messages, day, record


class SpaceWaits:
    """What waits for space, per task id."""

    def __init__(self, pending_dir: Path) -> None:
        self.pending_dir = pending_dir
        self.unrecorded: dict[str, tuple[list[ContextMessage], dt.date, PendingRecord]] = {}
        self.after_space: set[str] = set()  # recorded; failed for a full disk

    def record_or_wait(
        self, path: Path, messages: list[ContextMessage], day: dt.date, record: PendingRecord
    ) -> bool:
        """Write the record at `path`; on a full disk keep it waiting here (False)."""
        try:
            _write_record(path, record)
        except OSError as exc:
            if not is_disk_full(exc):
                raise
            self.unrecorded[path.stem] = (messages, day, record)
            return False
        return True

    def ready(self, running: set[str]) -> Iterator[Waiting]:
        """The waiting summaries that can run now (their record written), each once."""
        if self.after_space and not no_space_left(self.pending_dir):
            for task_id in sorted(self.after_space - running):
                self.after_space.discard(task_id)
                loaded = _load_record(self.pending_dir / f"{task_id}.json")
                if loaded is not None:
                    record, messages = loaded
                    yield task_id, messages, _parse_date(record.get("date")), record
        for task_id, (messages, day, record) in list(self.unrecorded.items()):
            try:
                _write_record(self.pending_dir / f"{task_id}.json", record)
            except OSError as exc:
                if is_disk_full(exc):
                    return
                raise
            del self.unrecorded[task_id]
            yield task_id, messages, day, record

    def take_unrecorded(self) -> list[PendingRecord]:
        """At exit: the records of the summaries that could never be written (handed over to
        be put aside elsewhere, `conversation.rescue`); none wait here after."""
        records = [record for _messages, _day, record in self.unrecorded.values()]
        self.unrecorded.clear()
        return records

    def lost_lines(self, records: list[PendingRecord]) -> list[str]:
        """At exit: the summaries that could be recorded nowhere."""
        return [
            f"Summary {record['id']} was not saved: {disk_full_text(self.pending_dir)}; its "
            f"{len(record['messages'])} messages could not be recorded for a later summary."
            for record in records
        ]
