"""`/diff` and `/undo`: see and take back the file changes of the agent's replies.

Replies are numbered per conversation in the order they changed files (`#1`, `#2`, …). With no
argument both act on the latest reply whose changes are not undone; `/diff N` and `/undo N`
pick one, and `/diff` lists the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from remecli.agent import events as ev
from remecli.commands import session_events as se
from remecli.commands.frontend import CommandContext

if TYPE_CHECKING:  # the checkpoint store loads with the first /diff or /undo, not at start
    from remecli.tools.checkpoints import ReplyRecord

Events = AsyncIterator[se.SessionEvent]

DIFF_SUMMARY = "Show the file changes of the agent's last reply (/diff N: of reply N)"
UNDO_SUMMARY = "Undo the file changes of the agent's last reply (/undo N: of reply N)"


def _records(ctx: CommandContext) -> list[ReplyRecord]:
    checkpoints = ctx.assistant.checkpoints
    session = ctx.assistant.context.session_id if ctx.assistant.context is not None else None
    return checkpoints.store.replies(session) if session else []


def _pick(records: list[ReplyRecord], arg: str) -> ReplyRecord | str:
    """The reply `arg` names (a number, optionally `#N`), else the latest not undone; or why none."""
    if not records:
        return "No file changes recorded in this conversation yet."
    wanted = arg.strip().lstrip("#")
    if wanted:
        if not wanted.isdigit():
            return f"Pass a reply number, e.g. /undo {records[-1].number}."
        for record in records:
            if record.number == int(wanted):
                return record
        numbers = ", ".join(str(r.number) for r in records)
        return f"No reply #{wanted} with file changes; there are: {numbers}."
    for record in reversed(records):
        if not record.undone:
            return record
    return "Every recorded change of this conversation is already undone."


def _title(record: ReplyRecord) -> str:
    message = f" “{record.message}”" if record.message else ""
    files = f"{len(record.changes)} file{'s' if len(record.changes) != 1 else ''}"
    undone = " (undone)" if record.undone else ""
    return f"#{record.number}{message}: {files}{undone}"


def diff_page(records: list[ReplyRecord], record: ReplyRecord, ctx: CommandContext) -> str:
    """The /diff page: the reply's changes as a diff, then the other replies to pick from."""
    from remecli.tools.checkpoints import change_kind, reply_diff

    store = ctx.assistant.checkpoints.store
    lines = [f"## Reply {_title(record)}", ""]
    for name in sorted(record.changes):
        lines.append(f"- {change_kind(record.changes[name])} `{name}`")
    if record.untracked:
        lines += ["", f"_{record.untracked}_"]
    lines += ["", "```diff", reply_diff(store, record), "```", ""]
    if not record.undone:
        lines.append(f"`/undo {record.number}` puts these files back as they were.")
    others = [r for r in records if r is not record]
    if others:
        lines += ["", "### Other replies that changed files", ""]
        lines += [f"- {_title(r)} — `/diff {r.number}`" for r in reversed(others)]
    return "\n".join(lines)


def _later_changes(records: list[ReplyRecord], picked: ReplyRecord) -> int | None:
    """The latest reply after `picked`, not undone, that changed one of its files."""
    for record in reversed(records):
        later = record.number > picked.number and not record.undone
        if later and set(record.changes) & set(picked.changes):
            return record.number
    return None


async def show_diff(ctx: CommandContext) -> Events:
    """/diff [N]"""
    records = await asyncio.to_thread(_records, ctx)
    picked = _pick(records, ctx.arg)
    if isinstance(picked, str):
        yield ev.Notice(picked)
        return
    yield se.ShowPage(
        f"diff #{picked.number}", await asyncio.to_thread(diff_page, records, picked, ctx)
    )


async def undo(ctx: CommandContext) -> Events:
    """/undo [N]"""
    records = await asyncio.to_thread(_records, ctx)
    picked = _pick(records, ctx.arg)
    if isinstance(picked, str):
        yield ev.Notice(picked)
        return
    from remecli.tools.checkpoints import undo_reply

    checkpoints = ctx.assistant.checkpoints
    outcome = await asyncio.to_thread(undo_reply, checkpoints.store, picked, checkpoints.workspace)
    if outcome.refused:
        reasons = "; ".join(outcome.refused)
        later = _later_changes(records, picked)
        how = (
            f"Undo the later reply first (/undo {later})"
            if later
            else f"Look at the change with /diff {picked.number} and put the files back by hand "
            f"if you still want to"
        )
        yield ev.ErrorReport(f"Nothing undone: {reasons}. {how}.", kind="command")
        return
    parts = []
    if outcome.restored:
        parts.append("restored " + ", ".join(outcome.restored))
    if outcome.deleted:
        parts.append("deleted " + ", ".join(outcome.deleted) + " (created by that reply)")
    from remecli.agent.model_notes import undo_note

    language = ctx.assistant.settings.language  # the model's replies still say they changed
    ctx.assistant.model_notes.add(undo_note(outcome.restored, outcome.deleted, language))
    yield ev.Notice(f"Undid reply #{picked.number}: {'; '.join(parts)}.")
