"""Line-mode front-ends: a prompt-toolkit REPL (dumb terminals, SSH, screen readers) and one-shot.

Both render the same `ChatSession` event stream as the TUI, with rich.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from remecli.agent import events as ev
from remecli.agent.notice_text import notice_line
from remecli.commands import session_events as se
from remecli.commands.chat_session import ChatSession
from remecli.commands.frontend import resume_hint, saves_on_exit
from remecli.config.privacy import private_dirs
from remecli.config.settings import Settings
from remecli.ui.plain_frontend import ABOUT_PLAIN, PlainFrontEnd, call_key
from remecli.ui.plain_typing import typing_hidden, typing_shown

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

QUIT_WINDOW_S = 2.0


class PlainRenderer:
    """Prints events: answer text streams raw, then tool lines, notices and errors."""

    def __init__(self, out: Console, err: Console, shown_calls: set[str] | None = None) -> None:
        self.out = out
        self.err = err
        self.in_text = False
        self.shown_calls = shown_calls if shown_calls is not None else set()  # ⚙ lines shown
        self.open_calls: dict[str, str] = {}  # call id → its key in shown_calls, until it ends
        self.cancel_said = False  # "Reply cancelled." is said once per reply
        self.shown_notices: set[str] = set()  # so the exit lines repeat none of them

    def render(self, event: object) -> None:
        """Print one event."""
        if isinstance(event, ev.TextDelta):
            self.out.file.write(event.text)
            self.out.file.flush()
            self.in_text = True
            return
        if not isinstance(event, ev.UsageReport | ev.ThinkingDelta | ev.ContextUsage):
            self.end_text()
        if isinstance(event, ev.ToolCallReady):
            key = call_key(event.name, event.arguments)
            self.open_calls[event.call_id] = key
            if key not in self.shown_calls:
                self.shown_calls.add(key)
                self.line(f"⚙ {event.name} {event.arguments[:200]}", "dim")
        elif isinstance(event, ev.ToolFinished):
            self.shown_calls.discard(self.open_calls.pop(event.call_id, ""))
            first = (event.output.strip().splitlines() or [""])[0][:120]
            self.line(f"  → {event.state} ({event.duration:.1f}s) {first}", "dim")
        elif line := notice_line(event):
            self.shown_notices.add(line)
            self.line(f"• {line}", "cyan")
        elif isinstance(event, ev.ErrorReport):
            self.line(f"✗ {event.message}", "red")
        elif isinstance(event, ev.Retrying):
            self.line(f"• {event.line}", "yellow")
        elif isinstance(event, se.WorkStarted):
            self.cancel_said = False
        elif isinstance(event, se.WorkEnded) and event.cancelled and not self.cancel_said:
            self.cancel_said = True
            self.err.print("\nReply cancelled.")
        elif isinstance(event, se.Resumed):
            self.line(
                f"• Resumed conversation {event.session_id} ({event.turns} turns); go on typing.",
                "cyan",
            )

    def end_text(self) -> None:
        """Finish a streamed answer with a newline."""
        if self.in_text:
            self.out.file.write("\n")
            self.out.file.flush()
            self.in_text = False

    def line(self, text: str, style: str) -> None:
        """One stderr line; the text is data, never markup."""
        self.err.print(Text(text, style=style), highlight=False)


async def show_until_handled(
    session: ChatSession, renderer: PlainRenderer, frontend: PlainFrontEnd
) -> bool:
    """Render the session's events until the submitted line is handled (Ctrl+C cancels the
    reply meanwhile, not the REPL); False when an error was reported."""
    failed = False
    try:
        # type-ahead is not echoed into the answer; it waits for the prompt
        def interrupt() -> None:  # Ctrl+C: close an open question, cancel the reply
            frontend.interrupt()
            session.cancel()

        with ctrl_c_calls(interrupt), typing_hidden():
            async for event in session.events():
                if isinstance(event, ev.ApprovalRequest | se.PickSession):
                    renderer.end_text()
                    with typing_shown():  # the answer to a question is seen as it is typed
                        await frontend.show(event)
                elif not await frontend.show(event):
                    renderer.render(event)
                failed = failed or isinstance(event, ev.ErrorReport)
                if isinstance(event, se.InputHandled):
                    break
    finally:
        renderer.end_text()
    return not failed


@contextlib.contextmanager
def ctrl_c_calls(callback: Callable[[], object]) -> Iterator[None]:
    """Inside, Ctrl+C (SIGINT) calls `callback` on the event loop; after, the handler from
    before is back. (asyncio's `remove_signal_handler` would install Python's default, which
    raises KeyboardInterrupt wherever the main thread happens to be, in the middle of the
    save at exit too.)"""
    loop = asyncio.get_running_loop()
    previous = signal.getsignal(signal.SIGINT)
    try:
        loop.add_signal_handler(signal.SIGINT, callback)
    except (NotImplementedError, RuntimeError):  # no signals here (Windows, not main thread)
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, previous)


def _cancel_on_sigterm() -> None:
    """SIGTERM cancels the running front-end task, whose `finally` then saves memory."""
    task = asyncio.current_task()
    if task is None:
        return
    with contextlib.suppress(NotImplementedError, RuntimeError):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            asyncio.get_running_loop().add_signal_handler(sig, task.cancel)


async def _close(session: ChatSession) -> list[str]:
    """Save memory on the way out; a Ctrl+C meanwhile stops waiting (work stays pending)."""
    waiting = asyncio.current_task()
    interrupted = False

    def stop_waiting() -> None:
        nonlocal interrupted
        interrupted = True
        if waiting is not None:
            waiting.cancel()

    try:
        with ctrl_c_calls(stop_waiting):
            return await session.close()
    except (KeyboardInterrupt, asyncio.CancelledError):
        if interrupted and waiting is not None:
            waiting.uncancel()  # Ctrl+C ends the wait, not the front-end task
        return await session.close(force=True)


def run_once(settings: Settings, question: str) -> int:
    """Answer one question on stdout (tool activity and errors on stderr); non-zero on error,
    and when the conversation could not be saved in the working dir (a full disk)."""

    async def main() -> int:
        out, err = Console(), Console(stderr=True, soft_wrap=True)
        frontend = PlainFrontEnd(out, err)
        renderer = PlainRenderer(out, err, frontend.shown_calls)
        session = ChatSession(settings, about=ABOUT_PLAIN, approvals=sys.stdin.isatty())
        _cancel_on_sigterm()
        try:
            session.send(question)  # the question as it is: no slash commands in one-shot
            answered = await show_until_handled(session, renderer, frontend)
        finally:
            for line in await _close(session):  # what was not said as it happened
                if line not in renderer.shown_notices:
                    renderer.line(f"• {line}", "dim")
        memory = session.assistant.memory  # a full disk: not saved in the working dir
        unsaved = memory is not None and memory.conversation.waiting.not_saved
        return 0 if answered and not unsaved else 1

    return asyncio.run(main())


def run_repl(settings: Settings) -> int:
    """A prompt-toolkit REPL with history and the same slash commands."""

    async def main() -> int:
        out, err = Console(), Console(stderr=True, soft_wrap=True)
        frontend = PlainFrontEnd(out, err)
        renderer = PlainRenderer(out, err, frontend.shown_calls)
        session = ChatSession(settings, about=ABOUT_PLAIN)
        assistant = session.assistant
        private_dirs(assistant.working_dir)
        history_file = assistant.locations.plain_history
        prompt = _prompt_session(history_file)
        typed: list[str] = []  # lines of this conversation (/clear forgets them)
        err.print(
            f"remecli ({assistant.model_name}) — /help for commands, /exit or Ctrl+D to quit."
        )
        _cancel_on_sigterm()
        last_ctrl_c = 0.0  # at the prompt: twice within QUIT_WINDOW_S quits, as in the TUI
        try:
            while not frontend.quit_requested:
                try:
                    text = (await prompt.prompt_async("› ")).strip()
                except KeyboardInterrupt:  # a Ctrl+C meant for a reply that just ended
                    if time.monotonic() - last_ctrl_c < QUIT_WINDOW_S:
                        break
                    last_ctrl_c = time.monotonic()
                    err.print("Press Ctrl+C again to quit (or Ctrl+D, /exit).")
                    continue
                except (EOFError, asyncio.CancelledError):
                    break
                if not text:
                    continue
                typed.append(text)
                session.submit(text)
                await show_until_handled(session, renderer, frontend)
                _forget_typed_lines(frontend, history_file, typed)
        except asyncio.CancelledError:
            pass  # SIGTERM / SIGHUP: save (below) and exit normally
        finally:
            await _close_and_say_what_is_left(session, renderer, err)
        return 0

    return asyncio.run(main())


def _prompt_session(history_file: Path) -> PromptSession[str]:
    """prompt-toolkit's prompt with the private, redacted history and slash-command completion."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import WordCompleter
    from prompt_toolkit.history import FileHistory

    from remecli.commands import COMMANDS

    if not history_file.exists():  # what was typed: private (prompt-toolkit appends to it)
        os.close(os.open(history_file, os.O_WRONLY | os.O_CREAT, 0o600))
    return PromptSession(
        history=_redacting_history(FileHistory, history_file),
        completer=WordCompleter([f"/{n}" for n in COMMANDS], sentence=True),
    )


def _forget_typed_lines(frontend: PlainFrontEnd, history_file: Path, typed: list[str]) -> None:
    """After /clear the lines of this conversation leave the history file; after /resume they
    are no longer this conversation's (kept in the file)."""
    if frontend.forget_requested:
        frontend.forget_requested = False
        forget_history_lines(history_file, typed)
        typed.clear()
    if frontend.resumed:
        frontend.resumed = False
        typed.clear()


async def _close_and_say_what_is_left(
    session: ChatSession, renderer: PlainRenderer, err: Console
) -> None:
    """At exit: close the session (saving the conversation if due), print the notices not yet
    shown and how to resume."""
    if saves_on_exit(session.assistant):  # else only the transcript, kept all along
        err.print("Saving this conversation to long-term memory… (Ctrl+C to quit now)")
    for line in await _close(session):  # what was not said as it happened
        if line not in renderer.shown_notices:
            renderer.line(f"• {line}", "")
    hint = resume_hint(session.assistant)
    if hint:
        renderer.line(hint, "bold")


def _redacting_history(file_history: type[Any], path: Path) -> Any:
    """prompt-toolkit's `FileHistory` on `path` that stores each line with its secrets
    redacted (↑ in this run still recalls what was typed)."""
    from remecli.notes.redact import redact_text

    class RedactingFileHistory(file_history):
        def store_string(self, string: str) -> None:
            try:
                super().store_string(redact_text(string))
            except OSError:  # a full disk: the line is not kept across runs; the chat goes on
                logging.getLogger(__name__).warning("%s: line not kept", path, exc_info=True)

    return RedactingFileHistory(str(path))


def forget_history_lines(path: Path, typed: list[str]) -> None:
    """Drop the entries typed in this conversation from prompt-toolkit's history file
    (`# time` then `+line` lines per entry, stored redacted), rewritten atomically."""
    from remecli.notes.atomic_write import atomic_write_text
    from remecli.notes.redact import redact_text

    try:
        blocks = path.read_text(encoding="utf-8").split("\n\n")
    except OSError:
        return
    remaining = [redact_text(line) for line in typed]
    kept: list[str] = []
    for block in reversed(blocks):
        entry = "\n".join(line[1:] for line in block.splitlines() if line.startswith("+"))
        if entry in remaining:
            remaining.remove(entry)
            continue
        kept.append(block)
    with contextlib.suppress(OSError):
        atomic_write_text(path, "\n\n".join(reversed(kept)))
