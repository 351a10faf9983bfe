"""Conversation writes that wait out a full disk: the answer keeps coming, transcript records
(and the state file) that could not be written are kept in memory (in order, per transcript)
and written first at the next step and at exit; the user is told once when it starts and,
when space is back, where the messages kept meanwhile went. What still waits at exit is put
aside (`rescue`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from remecli.config.disk_full import disk_full_text, is_disk_full
from remecli.conversation.notices import DiskFull
from remecli.conversation.transcript import Transcript

log = logging.getLogger(__name__)


class WaitingWrites:
    """Transcript records not written yet for lack of space, and whether the user knows."""

    def __init__(self) -> None:
        self.records: dict[Path, list[dict[str, Any]]] = {}
        self.transcripts: dict[Path, Transcript] = {}  # each with its project
        self.states: dict[str, tuple[object, ...]] = {}  # session id → `write_state` arguments
        self.told = False
        self.one_shot = False  # `-p`: nothing is written "later", the process ends first
        self.kept: dict[Path, set[str]] = {}  # ids of the messages that waited, per transcript
        self.saved_text = ""  # the last "now saved in …" line
        self.not_saved = False  # at exit: something did not reach the working dir

    @property
    def waiting(self) -> int:
        """How many records wait for space."""
        return sum(len(records) for records in self.records.values())

    def append(self, transcript: Transcript, records: list[dict[str, Any]]) -> DiskFull | None:
        """Write what waits, then `records`, to their transcripts; on a full disk keep them for
        the next call. Returns the notice to show (None: nothing new to say)."""
        for path, waiting in self.records.items():  # waited since the last call: kept
            self.kept.setdefault(path, set()).update(message_ids(waiting))
        if records:
            self.records.setdefault(transcript.path, []).extend(records)
            self.transcripts.setdefault(transcript.path, transcript)
        for path in list(self.records):
            try:
                self.transcripts.get(path, Transcript(path)).append(self.records[path])
            except OSError as exc:
                if not is_disk_full(exc):
                    raise
                return self.full(path)
            del self.records[path]
            self.transcripts.pop(path, None)
        return self.space_back()

    def write_state(self, write: Callable[..., object], *args: object) -> bool:
        """`write(layout, session_id, …)` (a state file), after the ones that wait; on a full
        disk their arguments wait here for the next save or the exit (False)."""
        self.states[str(args[1])] = args
        for session_id in list(self.states):
            if not unless_disk_full(write, *self.states[session_id]):
                return False
            del self.states[session_id]
        return True

    def closing_lines(self) -> list[str]:
        """What the user reads at exit when records still wait (none: nothing)."""
        if not self.records:
            return []
        where = ", ".join(str(path) for path in self.records)
        return [
            f"{disk_full_text(where)}: the last {self.waiting} record(s) of this conversation "
            "could not be saved; free some space before the next conversation."
        ]

    def full(self, path: Path) -> DiskFull | None:
        """A write failed for lack of space: the notice, the first time."""
        log.warning(
            "%s: %d conversation record(s) wait for space", disk_full_text(path), self.waiting
        )
        if self.told:
            return None
        self.told = True
        self.kept.setdefault(path, set()).update(message_ids(self.records.get(path, [])))
        if self.one_shot:
            return DiskFull(
                f"{disk_full_text(path)}: this conversation could not be saved there; at exit "
                "it is put in a file elsewhere, named below, or you are told it is lost."
            )
        return DiskFull(
            f"{disk_full_text(path)}: answers go on, but this conversation is not being saved; "
            "it is kept in memory and written as soon as space is freed (do not quit before)."
        )

    def space_back(self) -> DiskFull | None:
        """Everything waiting was written: the notice if the user was told it waited."""
        if not self.told:
            return None
        self.told = False
        count = sum(len(ids) for ids in self.kept.values())
        where = ", ".join(str(path) for path in self.kept)
        self.kept = {}
        self.saved_text = (
            f"Space is back: the {count} message(s) kept in memory while the disk was full "
            f"are now saved in {where}."
        )
        return DiskFull(self.saved_text)


def message_ids(records: list[dict[str, Any]]) -> set[str]:
    """Ids of the messages `records` add or grow (`msg` and `blocks` records)."""
    ids = {str((r.get("msg") or {}).get("id")) for r in records if r.get("t") == "msg"}
    return ids | {str(r.get("msg_id")) for r in records if r.get("t") == "blocks"}


def unless_disk_full(write: Callable[..., object], *args: object) -> bool:
    """Call `write(*args)`; False (logged) when the disk is full, other errors raised."""
    try:
        write(*args)
    except OSError as exc:
        if not is_disk_full(exc):
            raise
        log.warning("%s: %s not done", disk_full_text(getattr(exc, "filename", "")), write.__name__)
        return False
    return True
