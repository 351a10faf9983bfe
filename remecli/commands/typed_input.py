"""What a typed line is: a message for the model, a slash command, or a mistyped command.

The one place slash input is parsed. A line starting with `/` is a command only when its first
word names one; a path or text (`/srv/data is where I keep stuff`, `/usr/bin/env python`) goes
to the model as it is; `//text` sends `/text`. A single unknown word (`/hlep`), or an unknown
word close to a command's name followed by text (`/compcat deploy`), is a mistyped command.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from remecli.commands.registry import COMMANDS, SlashCommand

_COMMAND_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_SPLIT = re.compile(r"/(\S*)\s*(.*)", re.DOTALL)


@dataclass(frozen=True)
class Message:
    """Text for the model."""

    text: str


@dataclass(frozen=True)
class CommandCall:
    """A known slash command and its argument."""

    command: SlashCommand
    arg: str


@dataclass(frozen=True)
class UnknownCommand:
    """`/word` that looks like a command but is none; `message` says so and what is near."""

    message: str


TypedInput = Message | CommandCall | UnknownCommand


def read_input(text: str) -> TypedInput:
    """Classify one submitted line."""
    if text.startswith("//"):
        return Message(text[1:])
    match = _SPLIT.fullmatch(text)
    if match is None:
        return Message(text)
    word, rest = match.group(1), match.group(2).strip()
    command = COMMANDS.get(word.lower())
    if command is not None:
        return CommandCall(command, rest)
    if not word and not rest:
        return UnknownCommand(unknown_command_message("/"))
    if not _COMMAND_WORD.fullmatch(word):
        return Message(text)  # a path (`/srv/data`), a number, punctuation: text
    near = nearest_command(word)
    if rest and near is None:
        return Message(text)  # `/tmp is full`: text that happens to start with a slash
    return UnknownCommand(unknown_command_message(f"/{word}", near))


def nearest_command(word: str) -> str | None:
    """The command name `word` was most likely meant to be, if any is close."""
    close = difflib.get_close_matches(word.lower(), list(COMMANDS), n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_command_message(token: str, near: str | None = None) -> str:
    """The error for `/something` that is not a command."""
    names = ", ".join(f"/{n}" for n in COMMANDS)
    guess = f" Did you mean /{near}?" if near else ""
    return (
        f"Unknown command {token!r}.{guess} Commands: {names}. Type /help for details "
        "(start a message with // to send it with its leading /)."
    )
