"""The saved conversations as `remecli sessions` lists them, as a job (`served=False`); light
to import: `remecli sessions` opens no runtime and loads no search."""

from __future__ import annotations

import asyncio

from pydantic import Field

from remecli.conversation.session_list import list_sessions
from remecli.ops.context import JobContext
from remecli.ops.registry import JOBS, JobParams, JobResult


class SessionsParams(JobParams["SessionsResult"]):
    """No parameters."""


class SessionSummary(JobResult):
    session_id: str
    started: str = Field(description="ISO time of the first record")
    last_activity: str = Field(description="ISO time of the newest record")
    first_user_line: str
    messages: int
    one_shot: bool = Field(description="A `-p` answer, not a conversation")
    empty: bool = Field(description="Nothing was said in it")


class SessionsResult(JobResult):
    sessions: list[SessionSummary] = Field(description="Most recent activity first")


@JOBS.define(
    "memory_sessions", params=SessionsParams, result=SessionsResult, read_only=True, served=False
)
async def memory_sessions(ctx: JobContext, params: SessionsParams) -> SessionsResult:
    """The saved conversations (`remecli sessions`), most recent activity first."""
    found = await asyncio.to_thread(list_sessions, ctx.memory.layout.sessions_dir)
    return SessionsResult(
        sessions=[
            SessionSummary.model_validate(
                {**info.as_json(), "one_shot": info.one_shot, "empty": info.empty}
            )
            for info in found
        ]
    )
