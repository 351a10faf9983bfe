"""The saved conversations in `sessions/`: id, start, last activity, first user line, size.

Read straight from the transcripts (`<id>.jsonl`, one JSON record a line) without building
agentscope messages, so listing many sessions stays cheap. A session nobody typed into (opened
and closed without a message) is *empty*: never picked as `resume=last`, nor shown by
`remecli sessions` or `/resume`. A `-p` answer is a *one-shot* (its state file says
`"kind": "one-shot"`): listed in time order with the others, marked, and never picked as
`resume=last`. Times come from the transcript's records (each carries when it was said: an
imported conversation keeps its own), the files' times only for a session without them.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NotRequired, TypedDict

FIRST_LINE_CHARS = 80
CONVERSATION = "conversation"
ONE_SHOT = "one-shot"
_KIND_MARK = f'"kind": "{ONE_SHOT}"'
_HEAD_BYTES = 512  # the state file's fields before the agent state fit in this


class SessionRow(TypedDict):
    """A saved conversation as `remecli sessions --json` prints it."""

    session_id: str
    started: str
    last_activity: str
    first_user_line: str
    messages: int
    one_shot: NotRequired[bool]  # only on one-shots


@dataclass(frozen=True)
class SessionInfo:
    """One saved conversation as `remecli sessions` and `/resume` show it."""

    session_id: str
    started: str  # ISO time of the first record (or of the file, when it has none)
    last_activity: str  # ISO time of the newest record (or of the last change on disk)
    first_user_line: str
    messages: int
    last_activity_ts: float  # for sorting
    one_shot: bool = False  # a `-p` answer, not a conversation

    @property
    def empty(self) -> bool:
        """True when the user never said anything in it."""
        return not self.first_user_line and self.messages == 0

    def as_json(self) -> SessionRow:
        """The public fields (`remecli sessions --json`); `one_shot` only on one-shots."""
        data = SessionRow(
            session_id=self.session_id,
            started=self.started,
            last_activity=self.last_activity,
            first_user_line=self.first_user_line,
            messages=self.messages,
        )
        if self.one_shot:
            data["one_shot"] = True
        return data


def list_sessions(sessions_dir: Path | str) -> list[SessionInfo]:
    """Every saved conversation, most recent activity first."""
    folder = Path(sessions_dir)
    if not folder.is_dir():
        return []
    ids: dict[str, list[Path]] = {}
    for path in folder.iterdir():
        for suffix in (".state.json", ".jsonl"):
            if path.name.endswith(suffix) and not path.name.startswith("."):
                ids.setdefault(path.name[: -len(suffix)], []).append(path)
    infos = [_describe(folder, sid, paths) for sid, paths in ids.items()]
    return sorted(infos, key=lambda info: info.last_activity_ts, reverse=True)


def describe_session(sessions_dir: Path | str, session_id: str) -> SessionInfo | None:
    """One saved conversation as `list_sessions` shows it (None when nothing of it is saved)."""
    folder = Path(sessions_dir)
    paths = [folder / f"{session_id}{suffix}" for suffix in (".state.json", ".jsonl")]
    found = [path for path in paths if path.exists()]
    return _describe(folder, session_id, found) if found else None


def last_session_id(sessions_dir: Path | str) -> str | None:
    """The most recently active conversation that is neither empty nor a one-shot."""
    for info in list_sessions(sessions_dir):
        if not info.empty and not info.one_shot:
            return info.session_id
    return None


def _describe(folder: Path, session_id: str, paths: list[Path]) -> SessionInfo:
    mtimes = [p.stat().st_mtime for p in paths if p.exists()]
    started, newest, first_line, count = _read_transcript(folder / f"{session_id}.jsonl")
    last_ts = newest if newest is not None else max(mtimes, default=0.0)
    if count == 0:
        first_line, count = _read_state(folder / f"{session_id}.state.json")
    return SessionInfo(
        session_id=session_id,
        started=started or _iso(min(mtimes, default=0.0)),
        last_activity=_iso(last_ts),
        first_user_line=first_line,
        messages=count,
        last_activity_ts=last_ts,
        one_shot=_is_one_shot(folder / f"{session_id}.state.json"),
    )


def _is_one_shot(state_file: Path) -> bool:
    """True when the state file says it holds a `-p` answer (read from its first bytes only)."""
    try:
        with state_file.open("rb") as handle:
            head = handle.read(_HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return False
    return _KIND_MARK in head.split('"agent_state"', 1)[0]


def _read_transcript(path: Path) -> tuple[str, float | None, str, int]:
    """(time of the first record, timestamp of the newest one (None: no dated record), first
    user line, messages recorded)."""
    started, newest, first_line, count = "", None, "", 0
    try:
        handle = path.open(encoding="utf-8", errors="replace")
    except OSError:
        return started, newest, first_line, count
    with handle:
        for line in handle:
            record = _parse(line)
            if record is None:
                continue
            started = started or str(record.get("at", ""))
            at = _timestamp(record.get("at"))
            newest = at if newest is None or (at is not None and at > newest) else newest
            if record.get("t") == "msg" and isinstance(record.get("msg"), dict):
                count += 1
                first_line = first_line or _user_line(record["msg"])
    return started, newest, first_line, count


def _timestamp(value: object) -> float | None:
    """A record's `at` (ISO time; without an offset: local time) as a timestamp."""
    try:
        moment = dt.datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.astimezone()).timestamp()


def _read_state(path: Path) -> tuple[str, int]:
    """(first user line, messages) from a state file, for a session without a transcript."""
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        context = payload["agent_state"].get("context", [])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return "", 0
    first = next((line for m in context if (line := _user_line(m))), "")
    return first, len(context)


def _user_line(msg: Mapping[str, object]) -> str:
    """The first non-blank line a user message says ("" for other roles)."""
    if msg.get("role") != "user":
        return ""
    content = msg.get("content")
    if isinstance(content, str):
        texts = [content]
    elif isinstance(content, list):
        texts = [b.get("text", "") for b in content if isinstance(b, dict)]
    else:
        texts = []
    for text in texts:
        for line in str(text).splitlines():
            if line.strip():
                line = line.strip()
                return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 1] + "…"
    return ""


def _parse(line: str) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _iso(timestamp: float) -> str:
    return dt.datetime.fromtimestamp(timestamp).astimezone().isoformat(timespec="seconds")
