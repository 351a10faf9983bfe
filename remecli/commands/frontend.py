"""What a slash command gets to work with, and what it knows about the front-end it runs in.

A command is one record in `registry.py`; its handler talks to the core (`Assistant`) and
yields events. Anything about the screen (a page, clear the view, copy, pick a session) is an
event too (`session_events.py`), so no command calls into a front-end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from remecli.agent.assistant import Assistant
    from remecli.commands.chat_session import ChatSession


@dataclass(frozen=True)
class FrontEndInfo:
    """What /help says about the front-end: its keys, how to configure it, its log file."""

    #: (key, action) pairs for /help (empty when the front-end has no key bindings to show)
    keys: Sequence[tuple[str, str]] = field(default_factory=tuple)
    #: how to configure remecli from this front-end, for /help
    config_hint: str = "`remecli config=cli key=value …`"
    #: the log file, for /help ("" when unknown)
    log_file: str = ""


@dataclass
class CommandContext:
    """What a command handler gets: the core, the argument, the front-end's description and
    the session it runs in (None in library use: /resume then only lists)."""

    assistant: Assistant
    arg: str = ""
    about: FrontEndInfo = field(default_factory=FrontEndInfo)
    session: ChatSession | None = None


def saves_on_exit(assistant: Assistant) -> bool:
    """True when leaving hands something to long-term memory (a summary of unsaved messages, or
    one still running), so the exit may say "Saving this conversation to long-term memory":
    `memory.summarize` is on and a model is configured. Otherwise only the transcript is kept,
    as it was all along, and the exit says nothing about saving."""
    from remecli.conversation.recovery import SAVED_MARK

    memory = assistant.memory
    if memory is None or not memory.settings.memory.summarize:
        return False
    if memory.tasks.gate.problem() is not None:  # nothing starts (the gate says why, once)
        return False
    if memory.tasks.pending_count:
        return True
    context = memory.conversation.state.context if memory.conversation.bound else []
    return any(not m.metadata.get(SAVED_MARK) for m in context)


def resume_hint(assistant: Assistant) -> str | None:
    """The line every front-end prints on exit so the user can come back to this conversation
    (None when nothing was said in it: there is nothing to resume)."""
    context = assistant.context
    if context is None:
        return None
    session = context.session
    if not session.live_entries() and not session.summary:
        # its only messages may have failed (taken back out of the context) while the
        # transcript keeps them: then `remecli sessions` and /resume list it, and so does this
        from remecli.conversation.session_list import describe_session

        saved = describe_session(assistant.locations.sessions_dir, context.session_id)
        if saved is None or saved.empty:
            return None
    return f"To continue this conversation: {resume_command(assistant, context.session_id)}"


def resume_command(assistant: Assistant, session_id: str) -> str:
    """The command that continues `session_id` as printed: its memory named when this folder
    would not find it, and a note when the API key (never recorded) came from nowhere else."""
    import os
    import shlex
    from pathlib import Path

    from remecli.config.loader import env_values
    from remecli.config.locations import choose_memory

    cwd = Path.cwd()
    memory = Path(assistant.working_dir).resolve()
    words = ["remecli", f"resume={session_id}"]
    if choose_memory(cwd, os.environ).root.resolve() != memory:
        words.append(shlex.quote(f"working_dir={memory}"))
    command = " ".join(words)
    if assistant.settings.llm.api_key and "REME_LLM_API_KEY" not in env_values(os.environ, cwd):
        command += " (give llm.api_key=… again: keys are never recorded)"
    return command
