"""memory_record: keep a conversation from another agent and summarize it into memory.

The messages are appended to the transcript `sessions/<session_id>.jsonl` (remecli's own format,
so `resume=<session_id>` and every reader of transcripts work on it; each record names the
conversation's `project`, else the current project); messages already in that
transcript (same id) are skipped, so a caller may send the whole conversation each time. The new
ones go to the runtime's background summarizer, which records them in `sessions/pending/` before
it returns: the job answers at once and a crash loses nothing.

Secrets in the messages (keys, tokens, passwords) are redacted before anything is stored, the
transcript included: every surface can serve transcripts back. Every record and the summary are
dated by the conversation (each message's time; the summary: the local day of the first new
message), not by the day it is recorded. With `memory.summarize=false` nothing is summarized.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from remecli.conversation.transcript import Transcript
from remecli.notes.redact import redact_secrets
from remecli.ops.context import JobContext
from remecli.ops.registry import JOBS, JobParams, JobResult

if TYPE_CHECKING:
    from remecli.llm.conversation_state import ContextMessage

MAX_MESSAGES = 5_000
MAX_MESSAGE_CHARS = 100_000
SESSION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"


class RecordMessage(BaseModel):
    """One message of the conversation."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["user", "assistant", "system"]
    content: str = Field(max_length=MAX_MESSAGE_CHARS, description="The message text")
    name: str | None = Field(None, max_length=100, description="Speaker name (default: the role)")
    id: str | None = Field(
        None, max_length=200, description="Stable message id; repeats are skipped"
    )
    timestamp: dt.datetime | None = Field(None, description="When it was said (ISO 8601)")


class RecordParams(JobParams["RecordResult"]):
    messages: list[RecordMessage] = Field(
        min_length=1, max_length=MAX_MESSAGES, description="The conversation, oldest first"
    )
    session_id: str = Field(
        pattern=SESSION_ID_PATTERN,
        description="The conversation's id (letters, digits, '.', '_', '-'); one transcript each",
    )
    project: str | None = Field(
        None,
        max_length=200,
        description="The project it was held in (default: the current project; '' for none)",
    )


class RecordResult(JobResult):
    session_id: str
    transcript: str = Field(description="The transcript file, relative to the working dir")
    recorded: int
    skipped: int
    days: list[str] = Field(description="The days (YYYY-MM-DD) the new messages were said on")
    summary_task: str | None = Field(description="The background summary's id (None: nothing new)")


def _message_id(session_id: str, message: RecordMessage) -> str:
    if message.id:
        return message.id
    stamp = message.timestamp.isoformat() if message.timestamp else ""
    digest = hashlib.sha256(
        "\x1f".join((session_id, message.role, stamp, message.content)).encode("utf-8")
    )
    return "rec-" + digest.hexdigest()[:24]


def _redacted(message: RecordMessage) -> RecordMessage:
    """The message with every secret in its text replaced by `[REDACTED:<kind>]`."""
    redaction = redact_secrets(message.content)
    return message.model_copy(update={"content": redaction.text}) if redaction.changed else message


def _to_msg(session_id: str, message: RecordMessage) -> ContextMessage:
    from remecli.llm.conversation_state import text_message

    moment = message.timestamp or dt.datetime.now().astimezone()
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return text_message(
        message.role,
        message.content,
        name=message.name or message.role,
        id=_message_id(session_id, message),
        created_at=moment.isoformat(timespec="seconds"),
    )


def _append_new(ctx: JobContext, params: RecordParams) -> tuple[list[Any], int, str]:
    path = ctx.memory.layout.transcript_file(params.session_id)
    project = ctx.memory.settings.project if params.project is None else params.project.strip()
    transcript = Transcript(path, project)
    with ctx.locks.hold(path):
        known = {msg.id for msg in transcript.read().messages}
        fresh = []
        for message in params.messages:
            if not message.content.strip():
                continue
            msg = _to_msg(params.session_id, _redacted(message))
            if msg.id not in known:
                known.add(msg.id)
                fresh.append(msg)
        # each record dated when it was said: listing, page, search and day keep its own time
        transcript.append([Transcript.message_record(msg, at=msg.created_at) for msg in fresh])
    return fresh, len(params.messages) - len(fresh), path.relative_to(ctx.root).as_posix()


@JOBS.define("memory_record", params=RecordParams, result=RecordResult, read_only=False)
async def memory_record(ctx: JobContext, params: RecordParams) -> RecordResult:
    """Store a conversation from another agent and summarize it into memory in the background.

    Appends the new messages to sessions/<session_id>.jsonl (repeats, by id, are skipped;
    secrets redacted) and returns at once; the summary lands in the memory of the
    conversation's day (memory/YYYY-MM-DD…) shortly after.
    """
    fresh, skipped, transcript = await asyncio.to_thread(_append_new, ctx, params)
    days = _days(fresh)
    task_id = None
    if fresh and ctx.memory.settings.memory.summarize:  # memory.summarize=false: none
        # dated by the conversation; `tasks` is the background summarizer (gated: no model, no run)
        task_id = ctx.memory.tasks.add(fresh, date=dt.date.fromisoformat(days[0]))
    return RecordResult(
        session_id=params.session_id,
        transcript=transcript,
        recorded=len(fresh),
        skipped=skipped,
        days=days,
        summary_task=task_id,
    )


def _days(messages: list[Any]) -> list[str]:
    """The local days (YYYY-MM-DD) these messages were said on, in order of first mention."""
    days: list[str] = []
    for msg in messages:
        day = f"{dt.datetime.fromisoformat(msg.created_at).astimezone():%Y-%m-%d}"
        if day not in days:
            days.append(day)
    return days
