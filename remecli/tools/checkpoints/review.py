"""Show and undo one reply's file changes (what `/diff` and `/undo` do)."""

from __future__ import annotations

import contextlib
import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path

from remecli.notes.atomic_write import atomic_write_bytes
from remecli.tools.checkpoints.store import (
    UNKNOWN,
    CheckpointStore,
    FileChange,
    ReplyRecord,
    file_digest,
)

MAX_DIFF_LINES_PER_FILE = 400


def _text(store: CheckpointStore, digest: str | None) -> str | None:
    """A kept content as text; "" for an absent file; None when binary or not kept."""
    if digest is None:
        return ""
    if digest == UNKNOWN:
        return None
    try:
        data = store.get(digest)
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def file_diff(store: CheckpointStore, change: FileChange) -> str:
    """The unified diff of one change (a note instead for binary or unkept content)."""
    before, after = _text(store, change.before), _text(store, change.after)
    label = f"{change.path} ({change.tool})"
    if before is None or after is None:
        what = (
            "its earlier content was not kept"
            if change.before == UNKNOWN
            else "binary or too large to show"
        )
        return f"{label}: changed ({what}; no diff to show)"
    old = "/dev/null" if change.before is None else f"a/{change.path}"
    new = "/dev/null" if change.after is None else f"b/{change.path}"
    lines = list(
        difflib.unified_diff(before.splitlines(), after.splitlines(), old, new, lineterm="", n=3)
    )
    if len(lines) > MAX_DIFF_LINES_PER_FILE:
        cut = len(lines) - MAX_DIFF_LINES_PER_FILE
        lines = lines[:MAX_DIFF_LINES_PER_FILE] + [f"[… {cut} more diff lines not shown]"]
    return "\n".join(lines) if lines else f"{label}: only its line ends or mode changed"


def reply_diff(store: CheckpointStore, record: ReplyRecord) -> str:
    """Every change of a reply as one diff, files in path order."""
    return "\n".join(file_diff(store, record.changes[name]) for name in sorted(record.changes))


def change_kind(change: FileChange) -> str:
    """ "created", "deleted" or "changed"."""
    if change.before is None:
        return "created"
    return "deleted" if change.after is None else "changed"


@dataclass
class UndoOutcome:
    """What an undo did: restored and deleted paths, or why it refused (nothing touched)."""

    restored: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def undo_reply(store: CheckpointStore, record: ReplyRecord, workspace: Path) -> UndoOutcome:
    """Put every file the reply changed back as it was before the reply, or refuse (changing
    nothing) when a file changed again since or its earlier content was not kept."""
    outcome = UndoOutcome()
    if record.undone:
        outcome.refused.append(f"reply {record.number} was already undone")
        return outcome
    for name in sorted(record.changes):
        change = record.changes[name]
        now = file_digest(workspace / name)
        if now != change.after:
            how = "was deleted" if now is None else "changed again"
            outcome.refused.append(f"{name} {how} since reply {record.number}")
        elif change.before == UNKNOWN or not change.before_kept:
            outcome.refused.append(f"{name}: its earlier content was too large to keep")
        elif change.before is not None and not store.has(change.before):
            outcome.refused.append(f"{name}: its checkpoint is missing from {store.root}")
    if outcome.refused:
        return outcome
    for name in sorted(record.changes):
        change = record.changes[name]
        target = workspace / name
        if change.before is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)  # a folder it made stays: it may have existed, empty
            outcome.deleted.append(name)
        else:
            atomic_write_bytes(target, store.get(change.before))
            outcome.restored.append(name)
    record.undone = True
    store.save(record)
    return outcome
