"""A conversation a full disk kept in memory: put aside at exit, put back at the next start.

At exit (`FileMemory.close`) what still waits for space — transcript records and state files
(`WaitingWrites`), summaries that could never be recorded (`SpaceWaits`) — is written, redacted
and private (0600 in a 0700 folder), to one file in the first of `rescue_dirs()` that takes it
(as a rule another disk than the full one), and the user is told where. The next remecli on that
working dir (`fold_in`, at its start) appends what its transcripts lack, writes the state files,
records the summaries in `sessions/pending/` (run by that start, or the next one that runs
summaries), deletes the file and says where the messages are now. While the disk is still full
the file stays and the next start tries again."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from remecli.config.disk_full import disk_full_text, is_disk_full
from remecli.config.locations import rescue_dirs
from remecli.config.privacy import private_dirs
from remecli.conversation.disk_wait import message_ids
from remecli.conversation.notices import DiskFull
from remecli.conversation.transcript import Transcript
from remecli.notes.atomic_write import PRIVATE_FILE_MODE, atomic_write_text
from remecli.notes.layout import WorkingDir
from remecli.notes.redact import redact_data

if TYPE_CHECKING:
    from remecli.conversation.conversation import Conversation
    from remecli.knowledge.background.waits import SpaceWaits

log = logging.getLogger(__name__)

RESCUE_VERSION = 1


def put_aside(
    conversation: Conversation, waits: SpaceWaits, environ: Mapping[str, str] = os.environ
) -> list[str]:
    """At exit (blocking): the lines the user reads about what a full disk kept in memory —
    where it is saved (space came back), else where it was put aside, else that it is lost.
    Sets `waiting.not_saved` when anything did not reach the working dir."""
    layout, waiting = conversation.layout, conversation.waiting
    summaries = waits.take_unrecorded()
    if not waiting.records and not waiting.states and not summaries:
        return [waiting.saved_text] if waiting.saved_text else []
    waiting.not_saved = bool(waiting.records or summaries)  # a state file alone: rebuilt
    ids = set().union(*(message_ids(records) for records in waiting.records.values()))
    ids |= {str(m.get("id")) for record in summaries for m in record.get("messages", [])}
    payload = {
        "version": RESCUE_VERSION,
        "working_dir": str(layout.root),
        "saved_at": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "transcripts": [
            {
                "session_id": path.stem,
                "project": waiting.transcripts.get(path, Transcript(path)).project,
                "records": records,
            }
            for path, records in waiting.records.items()
        ],
        "states": [
            {"session_id": args[1], "agent_state": args[2], "session_state": args[3]}
            | {"settings": args[4] if len(args) > 4 else {}}
            for args in waiting.states.values()
        ],
        "summaries": summaries,
    }
    text = json.dumps(redact_data(payload), ensure_ascii=False)
    name = f"{_key(layout.root)}-{dt.datetime.now():%Y%m%d-%H%M%S}-{os.getpid()}.json"
    what = f"the {len(ids)} message(s)" if ids else "the resume state"
    full = disk_full_text(layout.sessions_dir)
    tried = []
    for folder in rescue_dirs(environ):
        try:
            _write_private(folder, name, text)
        except OSError as exc:
            tried.append(f"{folder} ({exc.strerror or exc})")
            continue
        return [
            f"{full}: {what} of this conversation kept in memory: saved in {folder / name} "
            f"instead; the next remecli on {layout.root} puts it back (transcript and "
            "memory) once there is room."
        ]
    lost = f"{full}: {what} of this conversation kept in memory could not be kept anywhere"
    return [*waits.lost_lines(summaries), f"{lost} (also tried: {'; '.join(tried)})."]


async def fold_in(conversation: Conversation) -> None:
    """At a start: put back what earlier runs on this working dir put aside; one notice each."""
    for notice in await asyncio.to_thread(_fold_all, conversation.layout, os.environ):
        conversation.notify(notice)


def _fold_all(layout: WorkingDir, environ: Mapping[str, str]) -> list[DiskFull]:
    notices = []
    for folder in rescue_dirs(environ):
        for path in sorted(folder.glob(f"{_key(layout.root)}-*.json")) if folder.is_dir() else []:
            line = _fold_one(layout, path)
            if line:
                log.info("%s", line)
                notices.append(DiskFull(line))
    return notices


def _fold_one(layout: WorkingDir, path: Path) -> str:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("working_dir") != str(layout.root):
            return ""
        ids, where = _put_back(layout, path, data)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("%s is unreadable (%s); left in place", path, exc)
        return f"The messages put aside in {path} could not be read back ({exc}); it is kept."
    except OSError as exc:
        if is_disk_full(exc):
            return (
                f"{disk_full_text(layout.sessions_dir)}: the messages kept in {path} still wait "
                "for space; they are put back at a start once there is room."
            )
        log.warning("could not put back %s", path, exc_info=True)
        return f"The messages put aside in {path} could not be put back ({exc}); it is kept."
    path.unlink(missing_ok=True)
    summarized = " and will be summarized into memory" if data.get("summaries") else ""
    return (
        f"The {ids} message(s) kept in memory while the disk was full are now saved in "
        f"{', '.join(where) or layout.sessions_dir}{summarized}."
    )


def _put_back(layout: WorkingDir, path: Path, data: dict[str, Any]) -> tuple[int, list[str]]:
    """Transcripts first (the file is rewritten without them, so a retry never appends them
    twice), then state files and summary records (both replace, so a retry repeats them)."""
    from remecli.conversation.persistence import write_state
    from remecli.knowledge.background.records import write_pending

    ids: set[str] = set()
    where = []
    for item in data["transcripts"]:
        target = layout.transcript_file(_session_id(item["session_id"]))
        have = _ids_in(target)
        fresh = [r for r in item["records"] if r.get("t") != "msg" or not message_ids([r]) <= have]
        Transcript(target, item.get("project") or "").append(fresh)
        ids |= message_ids(item["records"])
        where.append(str(target))
    if data["transcripts"]:
        data = {**data, "transcripts": [], "done": sorted(ids), "where": where}
        _write_private(path.parent, path.name, json.dumps(data, ensure_ascii=False))
    ids |= set(data.get("done", []))
    where = list(data.get("where", where))
    for state in data["states"]:
        sid = _session_id(state["session_id"])
        write_state(layout, sid, state["agent_state"], state["session_state"], state["settings"])
    for record in data["summaries"]:
        write_pending(layout.pending_dir, record)
        ids |= {str(m.get("id")) for m in record.get("messages", [])}
    return len(ids), where


def _session_id(value: str) -> str:
    """A session id from the file: a plain name, never a path."""
    if not value or "/" in value or "\\" in value or value.startswith("."):
        raise ValueError(f"not an id: {value!r}")
    return value


def _ids_in(transcript: Path) -> set[str]:
    """Ids of the messages a transcript already holds."""
    ids: set[str] = set()
    try:
        with open(transcript, "rb") as handle:
            for raw in handle:
                try:
                    record = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("t") == "msg":
                    ids |= message_ids([record])
    except FileNotFoundError:
        pass
    return ids


def _write_private(folder: Path, name: str, text: str) -> None:
    """`folder/name` (0600) in a folder of this user (0700), atomically."""
    private_dirs(folder)
    if folder.stat().st_uid != os.getuid():
        raise PermissionError(f"{folder} belongs to another user")
    atomic_write_text(folder / name, text, new_mode=PRIVATE_FILE_MODE)


def _key(root: Path) -> str:
    """Names the rescue files of one working dir."""
    return hashlib.sha256(str(root).encode()).hexdigest()[:16]
