"""Append-only transcript `sessions/<session_id>.jsonl`: every message ever added, and checkpoints.

One JSON object per line:
- `{"t": "msg", "at": …, "msg": <message>}`: a message seen for the first time (its saved form,
  `remecli.llm.conversation_state.message_to_json`);
- `{"t": "blocks", "at": …, "msg_id": …, "blocks": [<block>, …]}`: blocks added later to it
  (one assistant reply grows block by block during a turn);
- `{"t": "checkpoint", "at": …, "summary": …, "covered": {msg_id: [block keys]}, …}`: a
  compaction, listing exactly which blocks it folded into the summary (so it can be undone);
- `{"t": "removed", "at": …, "msg_ids": […]}`: messages the app took out of the context.
`msg` and `blocks` records also name the `project` they were said in, when there is one
(`settings.project`, see `remecli.config.project`): search filters and prefers by it.
Records are appended whole: one `write` per batch, newline-terminated, fsynced; a failed
write (disk full) is cut back off. A torn tail left by a crash is terminated before the next
append, so it never glues onto a new record, and readers skip it (also one cut inside a
multi-byte character), naming the file in the log. Every string of a record is redacted
(`notes.redact.redact_data`) before it is written: a secret typed, read or printed in the
conversation never reaches the file (the live conversation keeps it until it is saved).
Each append also brings the transcript's readable Markdown page `sessions/<id>.md` up to date
(`remecli.conversation.transcript_page`), made from the same redacted records.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remecli.config.privacy import private_dirs
from remecli.conversation import transcript_page
from remecli.llm import conversation_state
from remecli.llm.conversation_state import ContentBlock, ContextMessage
from remecli.notes.redact import redact_data

log = logging.getLogger(__name__)


def now_iso() -> str:
    """Local time with offset, seconds precision."""
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")


@dataclass
class TranscriptData:
    """What a transcript holds, read back: messages with all their blocks, and checkpoints."""

    messages: list[ContextMessage] = field(default_factory=list)
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    removed: set[str] = field(default_factory=set)
    skipped_lines: int = 0
    torn_tail: bool = False  # the last line was cut (a crash or a full disk)


class Transcript:
    """The append-only log of one conversation; `project` (the current project, "" for none)
    is recorded on every `msg` and `blocks` record appended through it."""

    def __init__(self, path: Path | str, project: str = "") -> None:
        self.path = Path(path)
        self.project = project

    @staticmethod
    def message_record(msg: ContextMessage, at: str | None = None) -> dict[str, Any]:
        """Record of a message seen for the first time, `at` now (an imported one: when it
        was said)."""
        return {"t": "msg", "at": at or now_iso(), "msg": conversation_state.message_to_json(msg)}

    @staticmethod
    def blocks_record(msg_id: str, blocks: list[ContentBlock]) -> dict[str, Any]:
        """Record of blocks appended to an already recorded message."""
        return {
            "t": "blocks",
            "at": now_iso(),
            "msg_id": msg_id,
            "blocks": [conversation_state.block_to_json(b) for b in blocks],
        }

    @staticmethod
    def checkpoint_record(
        summary: str,
        covered: dict[str, list[str]],
        **info: Any,
    ) -> dict[str, Any]:
        """Record of a compaction: the new summary and the block keys it covers."""
        return {"t": "checkpoint", "at": now_iso(), "summary": summary, "covered": covered, **info}

    @staticmethod
    def removed_record(msg_ids: list[str]) -> dict[str, Any]:
        """Record of messages removed from the context without compaction."""
        return {"t": "removed", "at": now_iso(), "msg_ids": msg_ids}

    def append(self, records: list[dict[str, Any]]) -> None:
        """Append whole records (blocking file I/O: call it off the event loop).

        One `write` per batch, fsynced. A torn last line (left by a crash or a full disk) is
        terminated first so the new records start on their own line; a write that fails
        midway is cut back off, so no half record stays behind. The readable page
        `sessions/<id>.md` follows (`transcript_page`).
        """
        if not records:
            return
        if self.project:
            records = [_with_project(r, self.project) for r in records]
        payload = "".join(
            json.dumps(redact_data(r), ensure_ascii=False) + "\n" for r in records
        ).encode()
        private_dirs(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                log.warning(
                    "%s: torn last line (crash or full disk); starting a new line", self.path
                )
                payload = b"\n" + payload
            try:
                _write_all(fd, payload)
                os.fsync(fd)
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)  # no half record left behind
                raise
        finally:
            os.close(fd)
        transcript_page.after_append(self.path, size, payload)

    def read(self) -> TranscriptData:
        """Rebuild messages (blocks merged in order), checkpoints and removals."""
        data = TranscriptData()
        if not self.path.is_file():
            return data
        by_id: dict[str, ContextMessage] = {}
        with open(self.path, "rb") as handle:
            for raw in handle:
                data.torn_tail = not raw.endswith(b"\n")
                record = _parse(raw)
                if record is None:
                    data.skipped_lines += bool(raw.strip())
                    continue
                try:
                    self._apply(record, data, by_id)
                except ValueError:  # valid JSON, but not a message (conversation_state)
                    data.skipped_lines += 1
        if data.skipped_lines:
            log.warning(
                "transcript %s: skipped %d unreadable line(s)%s; the rest is used",
                self.path,
                data.skipped_lines,
                " (its last line was cut)" if data.torn_tail else "",
            )
        return data

    @staticmethod
    def _apply(
        record: dict[str, Any], data: TranscriptData, by_id: dict[str, ContextMessage]
    ) -> None:
        """Fold one parsed record into `data` (ValueError when it holds no message)."""
        kind = record.get("t")
        if kind == "msg":
            msg = conversation_state.message_from_json(record["msg"])
            if msg.id in by_id:
                by_id[msg.id].content.extend(msg.content)
                return
            by_id[msg.id] = msg
            data.messages.append(msg)
        elif kind == "blocks" and record.get("msg_id") in by_id:
            blocks = conversation_state.blocks_from_json(record["blocks"])
            by_id[record["msg_id"]].content.extend(blocks)
        elif kind == "checkpoint":
            data.checkpoints.append(record)
        elif kind == "removed":
            data.removed.update(record.get("msg_ids", []))


def _with_project(record: dict[str, Any], project: str) -> dict[str, Any]:
    """A message record naming the project it was said in (others as they are)."""
    if record.get("t") not in ("msg", "blocks") or record.get("project"):
        return record
    return {**record, "project": project}


def _write_all(fd: int, payload: bytes) -> None:
    """`os.write` until everything is written (a short write is continued, an error raised)."""
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _parse(raw: bytes) -> dict[str, Any] | None:
    """One record, or None for a blank, torn or undecodable line."""
    raw = raw.strip()
    if not raw:
        return None
    with contextlib.suppress(ValueError):  # UnicodeDecodeError is a ValueError
        record = json.loads(raw.decode("utf-8"))
        if isinstance(record, dict):
            return record
    return None


def list_sessions(sessions_dir: Path | str) -> list[tuple[str, float]]:
    """Saved sessions as `(session_id, last modified)`, newest first."""
    folder = Path(sessions_dir)
    if not folder.is_dir():
        return []
    found: dict[str, float] = {}
    for path in folder.iterdir():
        name = path.name
        for suffix in (".state.json", ".jsonl"):
            if name.endswith(suffix) and not name.startswith("."):
                sid = name[: -len(suffix)]
                found[sid] = max(found.get(sid, 0.0), path.stat().st_mtime)
    return sorted(found.items(), key=lambda item: item[1], reverse=True)


def resolve_session_id(sessions_dir: Path | str, ref: str) -> str:
    """`last` → the most recently saved session; otherwise `ref` itself if it exists.

    Raises `LookupError` with a message that says what to do.
    """
    sessions = list_sessions(sessions_dir)
    if ref == "last":
        if not sessions:
            raise LookupError(
                f"No saved session to resume in {sessions_dir}. Start without resume=…"
            )
        return sessions[0][0]
    if any(sid == ref for sid, _ in sessions):
        return ref
    known = ", ".join(sid for sid, _ in sessions[:5]) or "none"
    raise LookupError(
        f"No saved session '{ref}' in {sessions_dir} (recent: {known}). "
        "Use resume=last or one of these ids."
    )
