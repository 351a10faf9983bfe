"""Line-mode front-ends: a prompt-toolkit REPL (dumb terminals, SSH, screen readers) and one-shot.

Both consume the same core events as the TUI, rendered with rich.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys

from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from remecli.agent import events as ev
from remecli.agent.assistant import Assistant
from remecli.agent.notice_text import notice_line
from remecli.commands import dispatch, parse
from remecli.commands.help_text import help_markdown
from remecli.commands.registry import unknown_command_message
from remecli.config.settings import Settings


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


def _cancel_on_sigterm() -> None:
    """SIGTERM cancels the running front-end task, whose `finally` then saves memory."""
    task = asyncio.current_task()
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
        if not task.cancelled():
            raise  # the REPL itself is being cancelled (SIGTERM)
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
        assistant = Assistant(settings, ask=renderer.ask)
        assistant.working_dir.mkdir(parents=True, exist_ok=True)
        session: PromptSession = PromptSession(
            history=FileHistory(str(assistant.working_dir / "plain_history")),
            completer=WordCompleter([f"/{n}" for n in COMMANDS], sentence=True),
        )
        err.print(
            f"remecli ({assistant.model_name}) — /help for commands, /exit or Ctrl+D to quit."
        )
        _cancel_on_sigterm()
        try:
            while True:
                try:
                    text = (await session.prompt_async("› ")).strip()
                except (EOFError, KeyboardInterrupt, asyncio.CancelledError):
                    break
                if not text:
                    continue
                if text.startswith("/"):
                    parsed = parse(text)
                    if parsed is None:
                        err.print(unknown_command_message(text))
                        continue
                    command, arg = parsed
                    if command.ui == "exit":
                        break
                    if command.ui == "help":
                        out.print(
                            Markdown(
                                help_markdown(
                                    working_dir=str(assistant.working_dir),
                                    workspace=str(assistant.workspace),
                                    config_hint="`remecli config=cli key=value …`",
                                    tavily_enabled=bool(settings.tools.tavily_api_key),
                                )
                            )
                        )
                        continue
                    if command.ui == "history":
                        out.print(Markdown(assistant.history_markdown()))
                        continue
                    if command.ui == "horse":
                        out.print(
                            "🐎 马到成功 — success the moment the horse arrives. Happy Year of the Horse 2026!"
                        )
                        continue
                    async for event in dispatch(assistant, command, arg):
                        renderer.render(event)
                    continue
                if not await _reply_cancellable(assistant, text, renderer):
                    renderer.end_text()
                    err.print("\nReply cancelled.")
                renderer.end_text()
        finally:
            err.print("Saving this conversation to long-term memory… (Ctrl+C to quit now)")
            for line in await _close(assistant):
                renderer.line(f"• {line}", "")
        return 0

    return asyncio.run(main())
