"""The one registry of slash commands: one record per command (name, help, handler).

A handler gets a `CommandContext` (the core `Assistant`, the argument, what /help says about
the front-end, the session) and yields events to render; screen actions (show a page, clear
the view, quit, copy, pick a session) are events too (`session_events.py`). Adding a command is
adding one record here; `ChatSession` parses what is typed and runs them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from remecli.agent import events as ev
from remecli.commands import checkpoint_commands as checkpoints
from remecli.commands import memory_command, model_command
from remecli.commands import session_events as se
from remecli.commands.frontend import CommandContext, FrontEndInfo

if TYPE_CHECKING:
    from remecli.agent.assistant import Assistant
    from remecli.commands.chat_session import ChatSession

Events = AsyncIterator[se.SessionEvent]
Handler = Callable[[CommandContext], Events]


@dataclass(frozen=True)
class SlashCommand:
    """One slash command as /help, autocomplete and dispatch see it."""

    name: str
    summary: str
    waits: bool  # /help says whether the user waits for it
    handler: Handler
    usage: str = ""
    needs_idle: bool = False  # changes the conversation: runs only while no reply is running


async def _compact(ctx: CommandContext) -> Events:
    async for event in ctx.assistant.compact(focus=ctx.arg):
        yield event


async def _new(ctx: CommandContext) -> Events:
    yield se.ClearView()
    async for event in ctx.assistant.new_conversation():
        yield event


async def _clear(ctx: CommandContext) -> Events:
    yield se.ForgetTyped()
    yield se.ClearView()
    async for event in ctx.assistant.clear_conversation():
        yield event


async def _history(ctx: CommandContext) -> Events:
    yield se.ShowPage("history", ctx.assistant.history_markdown())


async def _help(ctx: CommandContext) -> Events:
    from remecli.commands.help_text import help_markdown

    page = help_markdown(
        working_dir=str(ctx.assistant.working_dir),
        workspace=str(ctx.assistant.workspace),
        config_hint=ctx.about.config_hint,
        keys=ctx.about.keys,
        tavily_enabled=bool(ctx.assistant.settings.tools.tavily_api_key),
        log_file=ctx.about.log_file,
    )
    yield se.ShowPage("help", page)


async def _exit(ctx: CommandContext) -> Events:
    yield se.QuitRequested()


async def _horse(ctx: CommandContext) -> Events:
    yield se.Celebrate()


async def _copy(ctx: CommandContext) -> Events:
    from remecli.commands.copy_text import copy_target, last_answer

    try:
        text, what = copy_target(last_answer(ctx.assistant.replay()), ctx.arg)
    except ValueError as exc:
        yield ev.ErrorReport(str(exc), kind="command")
        return
    yield se.CopyText(text, what)


async def _resume(ctx: CommandContext) -> Events:
    from remecli.conversation.session_list import list_sessions
    from remecli.notes.layout import WorkingDir

    current = ctx.assistant.context.session_id if ctx.assistant.context is not None else None
    sessions = [
        s
        for s in list_sessions(WorkingDir(ctx.assistant.working_dir).sessions_dir)
        if not s.empty and s.session_id != current
    ]
    if not sessions:
        yield ev.Notice("No other saved conversation to resume.")
        return
    if ctx.session is None:
        return
    chosen = ctx.arg
    if not chosen:
        answer: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        yield se.PickSession(sessions, answer)
        chosen = await answer or ""
    if chosen:
        async for event in ctx.session.switch_to(chosen):
            yield event


async def _dream(ctx: CommandContext) -> Events:
    from remecli.agent.memory_commands import dream

    async for event in dream(ctx.assistant, ctx.arg):
        yield event


async def _interests(ctx: CommandContext) -> Events:
    from remecli.agent.memory_commands import interests

    yield se.ShowPage("interests", await interests(ctx.assistant))


async def _prune(ctx: CommandContext) -> Events:
    from remecli.agent.memory_commands import prune_resources

    async for event in prune_resources(ctx.assistant):
        yield event


COMMANDS: dict[str, SlashCommand] = {
    c.name: c
    for c in (
        SlashCommand(
            "compact",
            "Compact the conversation into a checkpoint now (keeps recent messages) and save it "
            "to long-term memory in the background",
            waits=True,
            handler=_compact,
            usage="/compact [focus text]",
            needs_idle=True,
        ),
        SlashCommand(
            "new",
            "Start a new conversation; the current one is saved to long-term memory in the background",
            waits=False,
            handler=_new,
            needs_idle=True,
        ),
        SlashCommand(
            "clear",
            "Clear the conversation and delete its transcript WITHOUT saving anything anywhere",
            waits=False,
            handler=_clear,
            needs_idle=True,
        ),
        SlashCommand(
            "resume",
            "Pick a saved conversation and continue it (the current one is saved first)",
            waits=False,
            handler=_resume,
            usage="/resume [session id]",
            needs_idle=True,
        ),
        SlashCommand(
            "dream",
            "Consolidate new topic cards into the digest now (Auto Dream; also runs by itself)",
            waits=True,
            handler=_dream,
            usage="/dream [YYYY-MM-DD]",
        ),
        SlashCommand(
            "interests",
            "Show the topics the last dreams noticed you care about (remecli never acts on them)",
            False,
            _interests,
        ),
        SlashCommand(
            "prune",
            "Remove the cards of files deleted from resource/ (they stay in history)",
            False,
            _prune,
        ),
        SlashCommand(
            "model", model_command.SUMMARY, False, model_command.switch_model, "/model [name]", True
        ),
        SlashCommand(
            "memory",
            memory_command.SUMMARY,
            False,
            memory_command.memory,
            "/memory [open|undo PATH]",
        ),
        SlashCommand("diff", checkpoints.DIFF_SUMMARY, False, checkpoints.show_diff, "/diff [N]"),
        SlashCommand("undo", checkpoints.UNDO_SUMMARY, False, checkpoints.undo, "/undo [N]", True),
        SlashCommand(
            "history", "Show the uncompressed messages with token statistics", False, _history
        ),
        SlashCommand(
            "copy",
            "Copy the last answer to the clipboard (/copy N: its N-th code block)",
            False,
            _copy,
            usage="/copy [N]",
        ),
        SlashCommand(
            "help", "Show commands, key bindings, config and memory locations", False, _help
        ),
        SlashCommand("exit", "Quit (pending memory summaries are finished first)", False, _exit),
        SlashCommand(
            "horse", "Year of the Horse: fireworks, a galloping horse, a blessing", False, _horse
        ),
    )
}


def complete(prefix: str) -> list[SlashCommand]:
    """Commands whose `/name` starts with `prefix` (for autocomplete)."""
    if not prefix.startswith("/") or " " in prefix:
        return []
    return [c for name, c in COMMANDS.items() if f"/{name}".startswith(prefix.lower())]


async def dispatch(
    assistant: Assistant,
    command: SlashCommand,
    arg: str,
    about: FrontEndInfo | None = None,
    session: ChatSession | None = None,
) -> Events:
    """Run a command, yielding the events it produces (screen requests included)."""
    context = CommandContext(assistant, arg, about or FrontEndInfo(), session)
    async for event in command.handler(context):
        yield event
