"""`/memory`: what this conversation saved to long-term memory and where, each openable, with
undo through the version history.

    /memory               its topic cards, the digest nodes citing them, MEMORY.md changes
    /memory open PATH     show a memory file (a path under the working dir)
    /memory undo PATH     bring PATH back to its version from before this conversation
                          (the `memory_restore` job: the undo is itself a version)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from remecli.agent import events as ev
from remecli.commands import session_events as se
from remecli.commands.frontend import CommandContext

if TYPE_CHECKING:  # the knowledge package loads the search engine: only when /memory runs
    from remecli.knowledge.session_saves import SavedNote, SessionSaves

Events = AsyncIterator[se.SessionEvent]

SUMMARY = "What this conversation saved to memory and where (/memory open|undo PATH)"
MAX_OPEN_CHARS = 100_000


def _saves(ctx: CommandContext) -> SessionSaves | None:
    from remecli.knowledge.session_saves import conversation_start, session_saves

    assistant = ctx.assistant
    if assistant.context is None or assistant.memory is None:
        return None
    memory = assistant.runtime
    session = assistant.context.session_id
    since = conversation_start(memory.layout, session)
    return session_saves(memory.layout, memory.writer.store, session, since)


def _note_lines(notes: list[SavedNote], root: str) -> list[str]:
    lines = []
    for note in notes:
        about = f" — {note.description}" if note.description else ""
        lines.append(f"- **{note.name}**{about}  ")
        lines.append(
            f"  `{root}/{note.path}` · open: `/memory open {note.path}` · "
            f"versions: `remecli memory history {note.path}`"
        )
    return lines


def saves_page(saves: SessionSaves, root: str, pending: int) -> str:
    """The /memory page."""
    since = f", since {saves.since:%Y-%m-%d %H:%M}" if saves.since else ""
    lines = ["## What this conversation saved", "", f"Conversation `{saves.session_id}`{since}."]
    if pending:
        lines += ["", f"_{pending} summary(ies) still being written in the background._"]
    lines += ["", "### Topic cards", ""]
    lines += _note_lines(saves.cards, root) or [
        "_None yet: the conversation is saved as a card when it is compacted, on /new and on exit._"
    ]
    lines += ["", "### Digest nodes citing them", ""]
    lines += _note_lines(saves.nodes, root) or ["_None: Auto Dream has not used these cards yet._"]
    lines += ["", "### MEMORY.md", ""]
    changes = saves.memory_md
    if changes is None:
        lines.append("_Not changed in this conversation._")
    else:
        for version in changes.changes:
            when = version.time[:19].replace("T", " ")
            lines.append(f"- version {version.version}, {when} UTC: {version.source}")
        lines += ["", f"`{root}/MEMORY.md` · open: `/memory open MEMORY.md`"]
        if changes.before is not None:
            lines.append(
                f"Undo: `/memory undo MEMORY.md` (brings back version {changes.before}, from "
                f"before this conversation) · versions: `remecli memory history MEMORY.md`"
            )
    return "\n".join(lines)


async def memory(ctx: CommandContext) -> Events:
    """/memory [open PATH | undo PATH]"""
    action, _, path = ctx.arg.strip().partition(" ")
    path = path.strip()
    if action == "open" and path:
        async for event in _open(ctx, path):
            yield event
        return
    if action == "undo" and path:
        async for event in _undo(ctx, path):
            yield event
        return
    if action:
        yield ev.ErrorReport("Use /memory, /memory open PATH or /memory undo PATH.", "command")
        return
    saves = await asyncio.to_thread(_saves, ctx)
    if saves is None:
        yield ev.Notice("Nothing saved yet: the conversation has not started.")
        return
    root = str(ctx.assistant.working_dir)
    yield se.ShowPage("memory", saves_page(saves, root, ctx.assistant.pending_summaries()))


async def _open(ctx: CommandContext, path: str) -> Events:
    from remecli.ops.errors import JobError

    memory = ctx.assistant.memory
    if memory is None:
        yield ev.Notice("The memory is not loaded yet; try again in a moment.")
        return
    from remecli.ops.context import JobContext

    try:
        target = JobContext(memory).confine(path)
        text = await asyncio.to_thread(target.path.read_text, "utf-8", "replace")
    except JobError as exc:
        yield ev.ErrorReport(f"Cannot open {path}: {exc}", kind="command")
        return
    except OSError as exc:
        yield ev.ErrorReport(f"Cannot open {path}: {exc.strerror or exc}.", kind="command")
        return
    if len(text) > MAX_OPEN_CHARS:
        text = text[:MAX_OPEN_CHARS] + f"\n\n… [cut at {MAX_OPEN_CHARS:,} characters]"
    yield se.ShowPage(target.relative, text)


async def _undo(ctx: CommandContext, path: str) -> Events:
    from remecli.knowledge.session_saves import conversation_start, file_changes
    from remecli.ops.errors import JobError
    from remecli.ops.history_jobs import RestoreParams, memory_restore
    from remecli.ops.runner import JobRunner

    assistant = ctx.assistant
    if assistant.memory is None or assistant.context is None:
        yield ev.Notice("The memory is not loaded yet; try again in a moment.")
        return
    memory = assistant.runtime
    since = conversation_start(memory.layout, assistant.context.session_id)
    relative = path.strip("/")
    changes = (
        await asyncio.to_thread(file_changes, memory.writer.store, relative, since)
        if since is not None
        else None
    )
    if changes is None:
        yield ev.Notice(f"{relative} was not changed in this conversation: nothing to undo.")
        return
    if changes.before is None:
        yield ev.ErrorReport(
            f"{relative} had no version before this conversation (it was created in it), so "
            f"there is nothing to go back to; see `remecli memory history {relative}`.",
            kind="command",
        )
        return
    try:
        result = await JobRunner(memory).call(
            memory_restore, RestoreParams(path=relative, version=changes.before)
        )
    except JobError as exc:
        yield ev.ErrorReport(f"Could not undo {relative}: {exc}", kind="command")
        return
    undone = ", ".join(str(v.version) for v in changes.changes)
    yield ev.Notice(
        f"Restored {result.path} to version {result.restored} (before this conversation; "
        f"undid version(s) {undone}). The undo is version {result.version}: "
        f"`remecli memory history {result.path}` lists them all."
    )
