"""Line-mode front-ends: a prompt-toolkit REPL (dumb terminals, SSH, screen readers) and one-shot.

Both consume the same core events as the TUI, rendered with rich.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text

from remecli.agent import events as ev
from remecli.agent.assistant import Assistant
from remecli.agent.notice_text import notice_line
from remecli.commands import dispatch, parse
from remecli.commands.registry import unknown_command_message
from remecli.config.settings import Settings
from remecli.ui.plain_frontend import PlainFrontEnd


class PlainRenderer:
    """Prints core events: answer text streams raw, then tool lines, notices and errors."""

    def __init__(self, out: Console, err: Console) -> None:
        self.out = out
        self.err = err
        self.in_text = False
        self.asked: set[str] = set()  # calls already shown by the approval question

    async def ask(self, request) -> str:
        """Approval prompt in line mode (it shows the call, so its ⚙ line is not repeated)."""
        self.end_text()
        self.asked.add(_call_key(request.tool_name, dict(request.arguments)))
        arguments = json.dumps(dict(request.arguments), ensure_ascii=False)[:300]
        question = (
            f"\n⚙ {request.tool_name} {arguments}\n  needs your approval: {request.reason}\n"
            "  [y]es / [n]o / [a]lways: "
        )
        answer = (await asyncio.to_thread(input, question)).strip().lower()
        return {"y": "yes", "yes": "yes", "a": "always", "always": "always"}.get(answer, "no")

    def render(self, event: ev.CoreEvent) -> None:
        """Print one event."""
        if isinstance(event, ev.TextDelta):
            self.out.file.write(event.text)
            self.out.file.flush()
            self.in_text = True
            return
        if not isinstance(event, ev.UsageReport | ev.ThinkingDelta | ev.ContextUsage):
            self.end_text()
        if isinstance(event, ev.ToolCallReady):
            if _call_key(event.name, event.arguments) not in self.asked:
                self.line(f"⚙ {event.name} {event.arguments[:200]}", "dim")
        elif isinstance(event, ev.ToolFinished):
            first = (event.output.strip().splitlines() or [""])[0][:120]
            self.line(f"  → {event.state} ({event.duration:.1f}s) {first}", "dim")
        elif notice_line(event):
            self.line(f"• {notice_line(event)}", "cyan")
        elif isinstance(event, ev.ErrorReport):
            self.line(f"✗ {event.message}", "red")

    def end_text(self) -> None:
        """Finish a streamed answer with a newline."""
        if self.in_text:
            self.out.file.write("\n")
            self.out.file.flush()
            self.in_text = False

    def line(self, text: str, style: str) -> None:
        """One stderr line; the text is data, never markup."""
        self.err.print(Text(text, style=style), highlight=False)


def _call_key(name: str, arguments: object) -> str:
    """One spelling of a tool call, whether its arguments come as text or as a dict."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return f"{name}:{arguments}"
    return f"{name}:{json.dumps(arguments, sort_keys=True, ensure_ascii=False)}"


def _show_retries(renderer: PlainRenderer) -> None:
    """Say on stderr when a failed model call is retried ("retrying (2/3) after HTTP 500…")."""
    from remecli.llm.retry_notices import add_retry_listener

    add_retry_listener(lambda notice: renderer.line(f"• {notice.line}", "yellow"))


def _cancel_on_sigterm() -> None:
    """SIGTERM cancels the running front-end task, whose `finally` then saves memory."""
    task = asyncio.current_task()
    if task is None:
        return
    with contextlib.suppress(NotImplementedError, RuntimeError):
        for sig in (signal.SIGTERM, signal.SIGHUP):
            asyncio.get_running_loop().add_signal_handler(sig, task.cancel)


async def _close(assistant: Assistant) -> list[str]:
    """Save memory on the way out; a Ctrl+C meanwhile stops waiting (work stays pending)."""
    try:
        return await assistant.close()
    except (KeyboardInterrupt, asyncio.CancelledError):
        return await assistant.close(force=True)


async def _reply_cancellable(assistant: Assistant, text: str, renderer: PlainRenderer) -> bool:
    """Stream one reply; Ctrl+C cancels just this reply (False), not the REPL."""

    async def consume() -> None:
        async for event in assistant.send(text):
            renderer.render(event)

    task = asyncio.ensure_future(consume())
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, task.cancel)
    try:
        await task
        return True
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if not task.cancelled() or (current is not None and current.cancelling()):
            raise  # the REPL itself is being cancelled (SIGTERM): save and exit
        return False
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)


def run_once(settings: Settings, question: str) -> int:
    """Answer one question on stdout (tool activity and errors on stderr); non-zero on error."""

    async def main() -> int:
        renderer = PlainRenderer(Console(), Console(stderr=True, soft_wrap=True))
        assistant = Assistant(settings, ask=renderer.ask if sys.stdin.isatty() else None)
        failed = False
        _cancel_on_sigterm()
        _show_retries(renderer)
        try:
            async for event in assistant.send(question):
                failed = failed or isinstance(event, ev.ErrorReport)
                renderer.render(event)
            renderer.end_text()
        finally:
            for line in await _close(assistant):
                renderer.line(f"• {line}", "dim")
        return 1 if failed else 0

    return asyncio.run(main())


def run_repl(settings: Settings) -> int:
    """A prompt-toolkit REPL with history and the same slash commands."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import WordCompleter
    from prompt_toolkit.history import FileHistory

    from remecli.commands import COMMANDS

    async def main() -> int:
        out, err = Console(), Console(stderr=True, soft_wrap=True)
        renderer = PlainRenderer(out, err)
        frontend = PlainFrontEnd(out, err)
        assistant = Assistant(settings, ask=renderer.ask)
        assistant.working_dir.mkdir(parents=True, exist_ok=True)
        history_file = assistant.locations.plain_history
        if not history_file.exists():  # what was typed: private (prompt-toolkit appends to it)
            os.close(os.open(history_file, os.O_WRONLY | os.O_CREAT, 0o600))
        session: PromptSession = PromptSession(
            history=FileHistory(str(history_file)),
            completer=WordCompleter([f"/{n}" for n in COMMANDS], sentence=True),
        )
        typed: list[str] = []  # lines of this conversation (/clear forgets them)
        _show_retries(renderer)
        err.print(
            f"remecli ({assistant.model_name}) — /help for commands, /exit or Ctrl+D to quit."
        )
        _cancel_on_sigterm()
        try:
            while not frontend.quit_requested:
                try:
                    text = (await session.prompt_async("› ")).strip()
                except (EOFError, KeyboardInterrupt, asyncio.CancelledError):
                    break
                if not text:
                    continue
                typed.append(text)
                if not text.startswith("/"):
                    if not await _reply_cancellable(assistant, text, renderer):
                        renderer.end_text()
                        err.print("\nReply cancelled.")
                    renderer.end_text()
                    continue
                parsed = parse(text)
                if parsed is None:
                    err.print(unknown_command_message(text))
                    continue
                command, arg = parsed
                async for event in dispatch(assistant, command, arg, frontend):
                    renderer.render(event)
                renderer.end_text()
                if frontend.forget_requested:
                    frontend.forget_requested = False
                    forget_history_lines(history_file, typed)
                    typed.clear()
                if frontend.resume_requested:
                    assistant = await _resumed(assistant, settings, frontend, renderer)
                    typed.clear()
        except asyncio.CancelledError:
            pass  # SIGTERM / SIGHUP: save (below) and exit normally
        finally:
            err.print("Saving this conversation to long-term memory… (Ctrl+C to quit now)")
            for line in await _close(assistant):
                renderer.line(f"• {line}", "")
        return 0

    return asyncio.run(main())


async def _resumed(
    assistant: Assistant, settings: Settings, frontend: PlainFrontEnd, renderer: PlainRenderer
) -> Assistant:
    """/resume in line mode: save the current conversation, continue the chosen one."""
    session_id, frontend.resume_requested = frontend.resume_requested, None
    await assistant.close(force=True)  # unfinished summaries stay pending: retried at start
    resumed = Assistant(settings.model_copy(update={"resume": session_id}), ask=renderer.ask)
    try:
        await resumed.start()
    except Exception as exc:
        renderer.line(f"✗ Could not resume {session_id}: {exc}", "red")
        return resumed
    turns = sum(isinstance(e, ev.UserMessage) for e in resumed.replay())
    renderer.line(f"• Resumed conversation {session_id} ({turns} turns); go on typing.", "cyan")
    return resumed


def forget_history_lines(path: Path, typed: list[str]) -> None:
    """Drop the entries typed in this conversation from prompt-toolkit's history file
    (`# time` then `+line` lines per entry), rewritten atomically."""
    from remecli.notes.atomic_write import atomic_write_text

    try:
        blocks = path.read_text(encoding="utf-8").split("\n\n")
    except OSError:
        return
    remaining = list(typed)
    kept: list[str] = []
    for block in reversed(blocks):
        entry = "\n".join(line[1:] for line in block.splitlines() if line.startswith("+"))
        if entry in remaining:
            remaining.remove(entry)
            continue
        kept.append(block)
    with contextlib.suppress(OSError):
        atomic_write_text(path, "\n\n".join(reversed(kept)))
