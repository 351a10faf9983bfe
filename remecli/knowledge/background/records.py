"""Pending summary records on disk (`sessions/pending/<id>.json`): write, read, claim, remove,
how a summary ended (`SummaryOutcome`, its line),
and when a start may retry a failed one (the policy of `backoff`: a doubling wait, RETRY_LIMIT
failures at most)."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NotRequired, TypedDict

from remecli.knowledge.background.backoff import RETRY_LIMIT, retry_wait
from remecli.notes.files import PRIVATE_FILE_MODE, atomic_write_text
from remecli.notes.locks import FileLock
from remecli.notes.redact import redact_data

if TYPE_CHECKING:
    from remecli.knowledge.summary.summarizer import SummaryResult
    from remecli.llm.conversation_state import ContextMessage

log = logging.getLogger(__name__)


class PendingRecord(TypedDict):
    """A pending summary as `sessions/pending/<id>.json` holds it (RECORD_VERSION): its
    messages (`conversation_state.message_to_json`), the day and topic card they go to, and
    the backoff state after a failure (`retry_after` only once it failed)."""

    version: int
    id: str
    date: str
    created_at: str
    attempts: int
    retry_after: NotRequired[str]
    last_error: str
    session_id: str | None
    messages: list[dict[str, object]]  # JSON (`message_to_json`: llm sits below vector.values)


@dataclass
class SummaryOutcome:
    """How one background summary ended; `message` is the line shown to the user. `status`:
    written, nothing, failed, cancelled, skipped (another process owns it), waiting (for
    space) or paused (no model configured: not started); `pending_file` is set when the
    messages stay recorded for a later retry."""

    task_id: str
    status: str
    message: str
    result: SummaryResult | None = None
    pending_file: Path | None = None


def _write_record(path: Path, record: PendingRecord) -> None:
    text = json.dumps(redact_data(record), ensure_ascii=False)  # a pending summary: no secret
    atomic_write_text(path, text, new_mode=PRIVATE_FILE_MODE)


def write_pending(pending_dir: Path, record: PendingRecord) -> Path:
    """Record a summary's messages as `pending_dir/<id>.json` (redacted, private, atomic): a
    start runs it like any other pending summary. Returns its path."""
    task_id = str(record["id"])
    if not task_id or Path(task_id).name != task_id or task_id.startswith("."):
        raise ValueError(f"not a summary id: {task_id!r}")
    path = pending_dir / f"{task_id}.json"
    _write_record(path, record)
    return path


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _claim(path: Path) -> FileLock | None:
    """The lock of the record, held, or None if another process (or task) holds it or the
    record is gone (already done)."""
    lock = FileLock(path, create=False)
    return lock if lock.acquire(blocking=False) else None


def _load_record(path: Path) -> tuple[PendingRecord, list[ContextMessage]] | None:
    """A record and its messages (`conversation_state.message_from_json`); None (logged)
    when unreadable."""
    from remecli.llm.conversation_state import message_from_json

    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        messages = [message_from_json(item) for item in record["messages"]]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("pending summary %s is unreadable (%s); left in place", path, exc)
        return None
    return record, messages


def _parse_date(value: object) -> dt.date:
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        return dt.date.today()


def failure_message(
    task_id: str, path: Path, detail: str, count: int, attempts: int = 0, *, waits: bool = False
) -> str:
    """The line a failed summary shows: what failed, where its messages are kept (only when
    the record is really on disk) and when it is tried again (`waits`: once space is back)."""
    if not path.exists():  # never claim a record that was not written
        return (
            f"Summary {task_id} failed: {detail.rstrip('. ')}. Its {count} messages could not "
            f"be recorded in {path.parent} and will not be summarized again."
        )
    if waits:
        again = "they will be summarized once space is freed (in this run, else at next start)"
    elif attempts >= RETRY_LIMIT:
        again = (
            f"after {attempts} failed attempts a start no longer retries them: fix the "
            "cause, then /compact summarizes them again"
        )
    elif attempts:
        wait = retry_wait(attempts) / 60
        again = (
            f"they will be summarized again on /compact, or at a start {wait:.0f} min from "
            f"now or later (attempt {attempts} of {RETRY_LIMIT})"
        )
    else:
        again = "they will be summarized again on /compact or at next start"
    return (
        f"Summary {task_id} failed: {detail.rstrip('. ')}. Its {count} messages are kept in "
        f"{path}; {again}."
    )
