"""The one registry of slash commands: one record per command (name, help, handler).

A handler gets a `CommandContext` (the core `Assistant`, the `FrontEnd` it runs in, the argument)
and yields core events to render, or is a plain coroutine when it only acts on the screen; screen
actions (show a page, clear the view, quit, copy, pick a session) go through the `FrontEnd`
protocol, which every front-end implements once. Adding a command is adding one record here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from remecli.agent import events as ev
from remecli.commands.frontend import CommandContext, FrontEnd

if TYPE_CHECKING:
    from remecli.agent.assistant import Assistant

Handler = Callable[[CommandContext], AsyncIterator[ev.CoreEvent] | Awaitable[None]]


@dataclass(frozen=True)
class SlashCommand:
    """One slash command as /help, autocomplete and dispatch see it."""

    name: str
    summary: str
    waits: bool  # /help says whether the user waits for it
    handler: Handler
    usage: str = ""
    needs_idle: bool = False  # changes the conversation: runs only while no reply is running


async def _compact(ctx: CommandContext) -> AsyncIterator[ev.CoreEvent]:
    async for event in ctx.assistant.compact(focus=ctx.arg):
        yield event


async def _new(ctx: CommandContext) -> AsyncIterator[ev.CoreEvent]:
    if ctx.ui is not None:
        await ctx.ui.clear_view()
    async for event in ctx.assistant.new_conversation():
        yield event


async def _clear(ctx: CommandContext) -> AsyncIterator[ev.CoreEvent]:
    if ctx.ui is not None:
        await ctx.ui.forget_typed()
        await ctx.ui.clear_view()
    async for event in ctx.assistant.clear_conversation():
        yield event


async def _history(ctx: CommandContext) -> None:
    if ctx.ui is not None:
        await ctx.ui.show_page("history", ctx.assistant.history_markdown())


async def _help(ctx: CommandContext) -> None:
    from remecli.commands.help_text import help_markdown

    if ctx.ui is not None:
        page = help_markdown(
            working_dir=str(ctx.assistant.working_dir),
            workspace=str(ctx.assistant.workspace),
            config_hint=ctx.ui.config_hint,
            keys=ctx.ui.keys,
            tavily_enabled=bool(ctx.assistant.settings.tools.tavily_api_key),
            log_file=ctx.ui.log_file,
        )
        await ctx.ui.show_page("help", page)


async def _exit(ctx: CommandContext) -> None:
    if ctx.ui is not None:
        await ctx.ui.quit()


async def _horse(ctx: CommandContext) -> None:
    if ctx.ui is not None:
        await ctx.ui.celebrate()


async def _copy(ctx: CommandContext) -> AsyncIterator[ev.CoreEvent]:
    from remecli.commands.copy_text import copy_target, last_answer

    try:
        text, what = copy_target(last_answer(ctx.assistant.replay()), ctx.arg)
    except ValueError as exc:
        yield ev.ErrorReport(str(exc), kind="command")
        return
    if ctx.ui is not None:
        await ctx.ui.copy(text, what)


async def _resume(ctx: CommandContext) -> AsyncIterator[ev.CoreEvent]:
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
    if ctx.ui is None:
        return
    chosen = ctx.arg or await ctx.ui.pick_session(sessions)
    if chosen:
        await ctx.ui.resume(chosen)


async def _dream(ctx: CommandContext) -> AsyncIterator[ev.CoreEvent]:
    from remecli.agent.memory_commands import dream

    async for event in dream(ctx.assistant, ctx.arg):
        yield event


async def _interests(ctx: CommandContext) -> None:
    from remecli.agent.memory_commands import interests

    text = await interests(ctx.assistant)
    if ctx.ui is not None:
        await ctx.ui.show_page("interests", text)


async def _prune(ctx: CommandContext) -> AsyncIterator[ev.CoreEvent]:
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


def parse(text: str) -> tuple[SlashCommand, str] | None:
    """The command and its argument if `text` is a known slash command, else None."""
    if not text.startswith("/"):
        return None
    name, _, arg = text[1:].partition(" ")
    command = COMMANDS.get(name.strip().lower())
    return (command, arg.strip()) if command else None


def complete(prefix: str) -> list[SlashCommand]:
    """Commands whose `/name` starts with `prefix` (for autocomplete)."""
    if not prefix.startswith("/") or " " in prefix:
        return []
    return [c for name, c in COMMANDS.items() if f"/{name}".startswith(prefix.lower())]


async def dispatch(
    assistant: Assistant, command: SlashCommand, arg: str, ui: FrontEnd | None = None
) -> AsyncIterator[ev.CoreEvent]:
    """Run a command, yielding the core events it produces (screen actions go to `ui`)."""
    run = command.handler(CommandContext(assistant, ui, arg))
    if not isinstance(run, AsyncIterator):  # a screen action only: no events
        await run
        return
    async for event in run:
        yield event


def unknown_command_message(text: str) -> str:
    """The error for `/something` that is not a command."""
    names = ", ".join(f"/{n}" for n in COMMANDS)
    return f"Unknown command {text.split()[0]!r}. Commands: {names}. Type /help for details."
