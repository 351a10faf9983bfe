"""Saving and loading a conversation: the state file after each turn, the transcript as fallback.

`sessions/<id>.state.json` holds the agent state (exactly what the model sees: context and
summary) and the session marks; it is replaced atomically after each turn. If it is missing or
unreadable, the context is rebuilt from the transcript: every message minus the blocks covered
by checkpoints, with the last checkpoint's summary. Both are redacted before they are written
(the state file's every string, like the transcript's records): no secret is kept on disk.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remecli.conversation import transcript_page
from remecli.conversation.session_list import CONVERSATION, ONE_SHOT, list_sessions
from remecli.conversation.transcript import Transcript, TranscriptData, now_iso
from remecli.llm import conversation_state
from remecli.llm.blocks import block_key
from remecli.llm.conversation_state import ContextMessage
from remecli.notes.atomic_write import atomic_write_bytes
from remecli.notes.files import PRIVATE_FILE_MODE, atomic_write_text
from remecli.notes.layout import WorkingDir
from remecli.notes.redact import redact_data

log = logging.getLogger(__name__)

STATE_FILE_VERSION = 1
_KEPT_OUTPUT = re.compile(r"tool_result/([0-9a-f]{32}(?:\.full)?\.txt)")


@dataclass(frozen=True)
class ResumedAt:
    """What a conversation held on disk when this run resumed it: `/clear` goes back to it (the
    earlier part stays: the cards and day-page lines saved from it cite its transcript)."""

    transcript_bytes: int
    state: bytes | None
    checkpoint_replies: frozenset[str]


@dataclass
class SavedSession:
    """A conversation read back from disk."""

    session_id: str
    agent_state: dict[str, Any] | None
    session_state: dict[str, Any]
    history: list[ContextMessage] = field(default_factory=list)
    context: list[ContextMessage] = field(default_factory=list)
    from_transcript: bool = False
    problem: str = ""  # what was wrong with the state file, when it was rebuilt
    resumed: ResumedAt | None = None  # what was on disk when it was read


def write_state(
    working_dir: WorkingDir,
    session_id: str,
    agent_state: dict[str, Any],
    session_state: dict[str, Any],
    settings: dict[str, object] | None = None,
) -> None:
    """Replace `sessions/<id>.state.json` atomically (blocking: call off the event loop);
    `settings`: what the conversation runs with (`started_with`, no secret), for a resume."""
    payload = {
        "version": STATE_FILE_VERSION,
        "session_id": session_id,
        "saved_at": now_iso(),
        # before the (long) agent state, so a listing finds it in the file's first bytes
        "kind": ONE_SHOT if session_state.get("one_shot") else CONVERSATION,
        "settings": settings or {},
        "agent_state": agent_state,
        "session": session_state,
    }
    text = json.dumps(redact_data(payload), ensure_ascii=False)
    atomic_write_text(working_dir.state_file(session_id), text, new_mode=PRIVATE_FILE_MODE)


def delete_saved(working_dir: WorkingDir, session_id: str) -> list[str]:
    """Remove a conversation (`/clear`): its transcript, its readable page, its state file, the
    tool outputs it kept in `tool_result/` and its checkpoints; names of the removed files and
    folders. (The search index forgets the transcript when its watcher sees it go.)"""
    removed = []
    transcript = working_dir.transcript_file(session_id)
    kept_outputs = _kept_outputs(working_dir, transcript)
    page = transcript_page.page_path(transcript)
    for path in (transcript, page, working_dir.state_file(session_id), *kept_outputs):
        try:
            path.unlink()
            removed.append(path.name)
        except FileNotFoundError:
            continue
    checkpoints = working_dir.checkpoints_dir / session_id
    if session_id.strip(".") and "/" not in session_id and checkpoints.is_dir():
        shutil.rmtree(checkpoints, ignore_errors=True)
        removed.append(f"{checkpoints.parent.name}/{checkpoints.name}")
    return removed


def resumed_at(working_dir: WorkingDir, session_id: str) -> ResumedAt:
    """The mark `clear_since` goes back to (blocking)."""
    transcript = working_dir.transcript_file(session_id)
    state = working_dir.state_file(session_id)
    replies = working_dir.checkpoints_dir / session_id
    return ResumedAt(
        transcript.stat().st_size if transcript.is_file() else 0,
        state.read_bytes() if state.is_file() else None,
        frozenset(p.name for p in replies.iterdir()) if replies.is_dir() else frozenset(),
    )


def forget(working_dir: WorkingDir, session_id: str, resumed: ResumedAt | None) -> None:
    """`/clear`: the whole conversation (`delete_saved`), or for one this run resumed what
    the run added (`clear_since`)."""
    if resumed is None:
        delete_saved(working_dir, session_id)
    else:
        clear_since(working_dir, session_id, resumed)


def clear_since(working_dir: WorkingDir, session_id: str, mark: ResumedAt) -> None:
    """`/clear` of a resumed conversation: remove what this run added (the transcript's new
    lines, the tool outputs only they name, this run's checkpoints) and put the state file back
    as it was at the resume; the readable page is rendered again."""
    transcript = working_dir.transcript_file(session_id)
    try:
        data = transcript.read_bytes()
    except FileNotFoundError:
        data = b""
    kept, added = data[: mark.transcript_bytes], data[mark.transcript_bytes :]
    named_before = set(_KEPT_OUTPUT.findall(kept.decode("utf-8", errors="replace")))
    for name in set(_KEPT_OUTPUT.findall(added.decode("utf-8", errors="replace"))) - named_before:
        (working_dir.tool_result_dir / name).unlink(missing_ok=True)
    if added:
        with transcript.open("r+b") as handle:
            handle.truncate(mark.transcript_bytes)
        transcript_page.rebuild(transcript)
    state = working_dir.state_file(session_id)
    if mark.state is None:
        state.unlink(missing_ok=True)
    else:
        atomic_write_bytes(state, mark.state, new_mode=PRIVATE_FILE_MODE)
    replies = working_dir.checkpoints_dir / session_id
    for reply in replies.iterdir() if replies.is_dir() else ():
        if reply.name not in mark.checkpoint_replies:
            shutil.rmtree(reply, ignore_errors=True)


def _kept_outputs(working_dir: WorkingDir, transcript: Path) -> list[Path]:
    """The files of `tool_result/` that a transcript names (offloaded or whole outputs)."""
    try:
        text = transcript.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    folder = working_dir.tool_result_dir
    names = set(_KEPT_OUTPUT.findall(text))
    return [folder / name for name in sorted(names)]


def load_saved(working_dir: WorkingDir, ref: str) -> SavedSession:
    """Read conversation `ref` (`last` or an id). Raises `LookupError` saying what to do."""
    session_id = find_session(working_dir, ref)
    mark = resumed_at(working_dir, session_id)
    data = Transcript(working_dir.transcript_file(session_id)).read()
    state_path = working_dir.state_file(session_id)
    problem = ""
    if state_path.is_file():
        try:
            payload = json.loads(state_path.read_text(encoding="utf-8"))
            agent_state, session_state = _checked_state(payload)
            context = [
                conversation_state.message_from_json(m) for m in agent_state.get("context", [])
            ]
            return SavedSession(
                session_id=session_id,
                agent_state=agent_state,
                session_state=session_state,
                history=data.messages,
                context=context,
                resumed=mark,
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("unreadable %s (%s); rebuilding from the transcript", state_path, exc)
            problem = f"{state_path.name} was unreadable ({exc}); rebuilt from the transcript."
    if not data.messages:
        raise LookupError(
            f"Session '{session_id}' has no readable state or transcript in "
            f"{working_dir.sessions_dir}. Start a new conversation without resume=…"
        )
    context, summary = rebuild_from_transcript(data)
    return SavedSession(
        session_id=session_id,
        agent_state=None,
        session_state={"summary": summary, "checkpoints": len(data.checkpoints)},
        history=data.messages,
        context=context,
        from_transcript=True,
        problem=problem,
        resumed=mark,
    )


def find_session(working_dir: WorkingDir, ref: str) -> str:
    """The id `ref` names: `last` is the newest conversation someone typed into (never a `-p`
    one-shot; an empty one only when there is nothing else). `LookupError` says what to do."""
    folder = working_dir.sessions_dir
    sessions = list_sessions(folder)
    if ref == "last":
        candidates = [s for s in sessions if not s.one_shot]
        chosen = next((s for s in candidates if not s.empty), None) or next(iter(candidates), None)
        if chosen is None:
            raise LookupError(
                f"No conversation to resume in {folder} (one-shot -p answers are not resumed "
                "by resume=last). List them with `remecli sessions`; start without resume=… "
                "for a new conversation."
            )
        return chosen.session_id
    if any(s.session_id == ref for s in sessions):
        return ref
    raise LookupError(
        f"No saved conversation '{ref}' in {folder}. List them with `remecli sessions`, "
        "then resume=<id> (or resume=last)."
    )


def _checked_state(payload: object) -> tuple[dict[str, Any], dict[str, Any]]:
    """The agent-state and session parts of a state file, or ValueError if they are not the
    shapes this version writes (the agent state must also read back as a conversation state)."""
    if not isinstance(payload, dict):
        raise ValueError("the state file is not a JSON object")
    agent_state, session_state = payload["agent_state"], payload.get("session", {})
    if not isinstance(agent_state, dict) or not isinstance(session_state, dict):
        raise ValueError("the agent state or session part has the wrong shape")
    if not isinstance(agent_state.get("context", []), list):
        raise ValueError("the saved context is not a list")
    conversation_state.state_from_json(agent_state)
    return agent_state, session_state


def rebuild_from_transcript(data: TranscriptData) -> tuple[list[ContextMessage], str]:
    """The context and summary implied by a transcript: uncovered blocks, last summary."""
    covered: dict[str, set[str]] = {}
    for checkpoint in data.checkpoints:
        for msg_id, keys in checkpoint.get("covered", {}).items():
            covered.setdefault(msg_id, set()).update(keys)
    context: list[ContextMessage] = []
    for msg in data.messages:
        if msg.id in data.removed:
            continue
        gone = covered.get(msg.id, set())
        blocks = [b for b in msg.content if block_key(b) not in gone]
        if blocks:
            context.append(conversation_state.with_blocks(msg, blocks))
    summary = data.checkpoints[-1].get("summary", "") if data.checkpoints else ""
    return context, summary
