"""The one registry of slash commands: name, help, handler.

Handlers act on the core (`Assistant`) and yield core events to render; commands that are about
the screen (help, history, exit, horse) name a `ui` action each front-end performs its own way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from remecli.agent import events as ev

if TYPE_CHECKING:
    from remecli.agent.assistant import Assistant

UIAction = Literal["help", "history", "exit", "horse", "clear_view"]


Handler = Callable[["Assistant", str], AsyncIterator[ev.CoreEvent]]


@dataclass(frozen=True)
class SlashCommand:
    """One slash command as /help, autocomplete and dispatch see it."""

    name: str
    summary: str
    waits: bool
    ui: UIAction | None = None
    handler: Handler | None = None
    usage: str = ""


async def _compact(assistant: Assistant, arg: str) -> AsyncIterator[ev.CoreEvent]:
    async for event in assistant.compact(focus=arg):
        yield event


async def _new(assistant: Assistant, arg: str) -> AsyncIterator[ev.CoreEvent]:
    async for event in assistant.new_conversation():
        yield event


async def _clear(assistant: Assistant, arg: str) -> AsyncIterator[ev.CoreEvent]:
    async for event in assistant.clear_conversation():
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
        ),
        SlashCommand(
            "new",
            "Start a new conversation; the current one is saved to long-term memory in the background",
            waits=False,
            ui="clear_view",
            handler=_new,
        ),
        SlashCommand(
            "clear",
            "Clear the conversation and delete its transcript WITHOUT saving anything anywhere",
            waits=False,
            ui="clear_view",
            handler=_clear,
        ),
        SlashCommand(
            "history", "Show the uncompressed messages with token statistics", False, "history"
        ),
        SlashCommand(
            "help", "Show commands, key bindings, config and memory locations", False, "help"
        ),
        SlashCommand("exit", "Quit (pending memory summaries are finished first)", False, "exit"),
        SlashCommand(
            "horse", "Year of the Horse: fireworks, a galloping horse, a blessing", False, "horse"
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
    assistant: Assistant, command: SlashCommand, arg: str
) -> AsyncIterator[ev.CoreEvent]:
    """Run a command's core part, yielding its events (front-ends then perform `command.ui`)."""
    if command.handler is not None:
        async for event in command.handler(assistant, arg):
            yield event


def unknown_command_message(text: str) -> str:
    """The error for `/something` that is not a command."""
    names = ", ".join(f"/{n}" for n in COMMANDS)
    return f"Unknown command {text.split()[0]!r}. Commands: {names}. Type /help for details."
