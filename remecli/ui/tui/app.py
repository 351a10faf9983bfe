"""The Textual chat app: paints at once, boots the agent in the background, renders core events."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from pathlib import Path

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.command import Hit, Hits, Provider
from textual.worker import Worker, WorkerError

from remecli.agent.assistant import Assistant, missing_key_message
from remecli.commands import COMMANDS, dispatch, parse
from remecli.commands.help_text import help_markdown
from remecli.commands.registry import unknown_command_message
from remecli.config.settings import Settings
from remecli.ui.tui.event_renderer import EventRenderer
from remecli.ui.tui.screens.approval_screen import ApprovalScreen
from remecli.ui.tui.screens.text_screen import TextScreen
from remecli.ui.tui.widgets.chat_input import ChatInput, InputHistory
from remecli.ui.tui.widgets.chat_view import ChatView
from remecli.ui.tui.widgets.command_menu import CommandMenu
from remecli.ui.tui.widgets.status_line import StatusLine

log = logging.getLogger(__name__)

KEYS = [
    ("Enter", "send"),
    ("Ctrl+J", "new line in the prompt"),
    ("↑ / ↓", "input history (on the first / last line); move in the / menu"),
    ("Tab", "complete a /command"),
    ("Esc", "cancel the reply in flight"),
    ("Ctrl+C", "cancel; twice to quit"),
    ("Ctrl+D / Ctrl+Q", "quit"),
    ("Ctrl+P", "command palette"),
]


class SlashCommands(Provider):
    """Every slash command in the command palette."""

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, command in COMMANDS.items():
            score = matcher.match(f"/{name} {command.summary}")
            if score > 0:
                yield Hit(
                    score, matcher.highlight(f"/{name}"), self._runner(name), help=command.summary
                )

    def _runner(self, name: str):
        return lambda: self.app.run_command_text(f"/{name}")


class RemeApp(App):
    """remecli's TUI."""

    TITLE = "remecli"
    COMMANDS = App.COMMANDS | {SlashCommands}
    CSS = """
    Screen { layout: vertical; }
    #input-area { height: auto; dock: bottom; margin-bottom: 1; }
    """
    BINDINGS = [
        Binding("escape", "cancel_reply", "Cancel", show=False),
        Binding("ctrl+c", "interrupt", "Cancel / quit", priority=True, show=False),
        Binding("ctrl+d", "ctrl_d", "Quit", priority=True, show=False),
        Binding("ctrl+q", "quit_app", "Quit", priority=True, show=False),
        Binding("tab", "complete", "Complete", show=False, priority=True),
    ]

    def __init__(
        self, settings: Settings, *, cwd: Path | None = None, log_file: Path | None = None
    ) -> None:
        super().__init__()
        self.settings = settings
        self.log_file = log_file
        self.assistant = Assistant(settings, cwd=cwd, ask=self._ask_approval)
        self.renderer: EventRenderer | None = None
        self._reply_worker: Worker | None = None
        self._last_interrupt = 0.0
        self._boot_error: str | None = None
        self._quitting = False
        self._shutdown_worker: Worker | None = None

    def compose(self) -> ComposeResult:
        yield ChatView(id="chat")
        menu = CommandMenu(id="command-menu")
        history = InputHistory(self.assistant.working_dir / "input_history.jsonl")
        chat_input = ChatInput(history, id="input")
        chat_input.completion_menu = menu
        yield menu
        yield chat_input
        yield StatusLine(id="status")

    async def on_mount(self) -> None:
        theme_problem = self._apply_theme()
        status = self.query_one(StatusLine)
        status.model_name = self.assistant.model_name
        status.max_tokens = self.settings.max_input_length
        status.working_dir = str(self.assistant.working_dir)
        self.renderer = EventRenderer(self.query_one(ChatView), status)
        self.query_one(ChatInput).focus()
        chat = self.query_one(ChatView)
        await chat.add_notice(
            "remecli — type a message, /help for commands. Memory lives in "
            f"{self.assistant.working_dir}.",
            classes="welcome",
        )
        for problem in (theme_problem, missing_key_message(self.settings)):
            if problem:
                await chat.add_error(problem)

    def on_ready(self) -> None:
        """First frame is on screen: now load the agent runtime in the background."""
        self.run_worker(self._boot(), name="boot", exclusive=False)
        self.assistant.notices.listener = self._background_event
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGTERM, self._on_sigterm)
            loop.add_signal_handler(signal.SIGHUP, self._on_hangup)  # closed terminal, dropped SSH

    def _on_sigterm(self) -> None:
        self.call_later(self.action_quit_app)

    def _on_hangup(self) -> None:
        """The terminal is gone: nothing to restore or draw. Save memory, then leave at once
        (Textual's orderly exit would wait on the dead terminal forever)."""

        async def save_then_leave() -> None:
            try:
                await asyncio.wait_for(self.assistant.close(), timeout=120)
            except BaseException:
                log.exception("saving on hang-up failed; unsaved work stays in sessions/")
            finally:
                logging.shutdown()
                os._exit(0)

        if not self._quitting:
            self._quitting = True
            asyncio.ensure_future(save_then_leave())

    async def action_quit(self) -> None:
        """Textual's own quit (command palette, bindings) takes the same saving path."""
        await self.action_quit_app()

    async def action_ctrl_d(self) -> None:
        """Ctrl+D quits on an empty prompt (as in a shell); otherwise it deletes forward."""
        box = self.query_one(ChatInput)
        if self.screen is self.screen_stack[0] and box.text:
            box.action_delete_right()
            return
        await self.action_quit_app()

    def _background_event(self, event) -> None:
        """A notice that arrived while no reply runs (background summary finished, …)."""
        self.call_later(self.renderer.render, event)

    def _apply_theme(self) -> str | None:
        """Register the theme files and select `theme`; the problem, if any, as one line."""
        from remecli.ui.tui.themes import ThemeError, load_themes, resolve_theme

        try:
            themes = load_themes(self.assistant.working_dir)
            for theme in themes.values():
                self.register_theme(theme)
            self.theme = resolve_theme(self.settings.theme, themes).name
        except ThemeError as exc:
            problem = f"{exc} (using the '{self.theme}' theme for now)"
            self.notify(problem, severity="error", timeout=10)
            return problem
        return None

    async def _boot(self) -> None:
        status = self.query_one(StatusLine)
        status.state = "loading agent…"
        try:
            await asyncio.to_thread(_import_runtime)
            await self.assistant.start()
        except Exception as exc:
            log.exception("agent start failed")
            where = f" Details in {self.log_file}." if self.log_file else ""
            self._boot_error = f"Could not start the agent: {exc}.{where}"
            await self.query_one(ChatView).add_error(self._boot_error)
            status.state = "error"
            return
        if self.settings.resume and not self.replying and not self.query(".user"):
            for event in self.assistant.replay():  # a resumed conversation, where it left off
                await self.renderer.render(event)
            await self.renderer.end_reply()
        status.state = "ready" if not self.replying else status.state
        self.renderer.context_usage(self.assistant.context_usage())

    # ----------------------------------------------------------------- input
    def on_key(self, event) -> None:
        """Typing while focus is elsewhere on the chat screen (a tool panel) goes to the prompt."""
        box = self.query_one(ChatInput)
        if self.screen is self.screen_stack[0] and self.focused is not box and event.is_printable:
            box.focus()
            box.insert(event.character or "")
            event.stop()

    def on_chat_input_edited(self, message: ChatInput.Edited) -> None:
        self.query_one(CommandMenu).show_for(message.text)

    async def on_chat_input_submitted(self, message: ChatInput.Submitted) -> None:
        self.query_one(CommandMenu).show_for("")
        await self.run_command_text(message.text)

    def action_complete(self) -> None:
        menu = self.query_one(CommandMenu)
        name = menu.selected_name()
        if name is None:
            self.screen.focus_next()
            return
        box = self.query_one(ChatInput)
        box.load_text(f"/{name} ")
        box.move_cursor(box.document.end)
        menu.show_for("")

    async def run_command_text(self, text: str) -> None:
        """Handle one submitted line: a slash command or a message to the agent."""
        chat = self.query_one(ChatView)
        if self.replying:
            self.notify(
                "A reply is still running: wait, or press Esc to cancel it.", severity="warning"
            )
            return
        if text.startswith("/"):
            parsed = parse(text)
            if parsed is None:
                await chat.add_error(unknown_command_message(text))
                return
            command, arg = parsed
            await self._run_command(command, arg)
            return
        if self._boot_error:
            await chat.add_error(self._boot_error + " Fix the setting and restart remecli.")
            return
        await chat.add_user(text)
        self._reply_worker = self.run_worker(self._reply(text), name="reply", exclusive=True)

    @property
    def replying(self) -> bool:
        """True while a reply (or a waiting command) runs."""
        return self._reply_worker is not None and self._reply_worker.is_running

    async def _reply(self, text: str) -> None:
        status = self.query_one(StatusLine)
        status.state = "thinking…"
        try:
            async with contextlib.aclosing(self.assistant.send(text)) as stream:
                async for event in stream:
                    await self.renderer.render(event)
        except asyncio.CancelledError:
            await self.renderer.note_cancelled()
            raise
        finally:
            await self.renderer.end_reply()
            status.state = "ready"
            if self.assistant.ready:
                self.renderer.context_usage(self.assistant.context_usage())

    async def _run_command(self, command, arg: str) -> None:
        if command.ui == "exit":
            await self.action_quit_app()
            return
        if command.ui == "help":
            self.push_screen(TextScreen(self.help_text(), "help"))
            return
        if command.ui == "history":
            self.push_screen(TextScreen(self.assistant.history_markdown(), "history"))
            return
        if command.ui == "horse":
            from remecli.ui.tui.horse import HorseScreen

            self.push_screen(HorseScreen())
            return
        if command.ui == "clear_view":
            await self.query_one(ChatView).remove_children()
        self._reply_worker = self.run_worker(
            self._command(command, arg), name="command", exclusive=True
        )

    async def _command(self, command, arg: str) -> None:
        status = self.query_one(StatusLine)
        status.state = f"/{command.name}…"
        try:
            async for event in dispatch(self.assistant, command, arg):
                await self.renderer.render(event)
        finally:
            status.state = "ready"
            if self.assistant.ready:
                self.renderer.context_usage(self.assistant.context_usage())

    def help_text(self) -> str:
        """The /help page."""
        return help_markdown(
            working_dir=str(self.assistant.working_dir),
            workspace=str(self.assistant.workspace),
            config_hint="`remecli config=cli key=value …` (see `remecli --help`)",
            keys=KEYS,
            tavily_enabled=bool(self.settings.tools.tavily_api_key),
            log_file=str(self.log_file or ""),
        )

    # --------------------------------------------------------------- actions
    async def _ask_approval(self, request) -> str:
        self.renderer.set_waiting(f"waiting for your approval of {request.tool_name}…")
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        screen = ApprovalScreen(
            request.tool_name, dict(request.arguments), request.reason, request.always_covers
        )
        self.push_screen(
            screen, callback=lambda answer: future.done() or future.set_result(answer or "no")
        )
        try:
            return await future
        finally:
            self.renderer.set_waiting(None)

    def action_cancel_reply(self) -> None:
        if self.query_one(CommandMenu).is_open:
            self.query_one(CommandMenu).show_for("")
            return
        if self.replying:
            self._reply_worker.cancel()

    async def action_interrupt(self) -> None:
        if self._quitting:
            await self._force_quit()
            return
        if self.replying:
            self._reply_worker.cancel()
            self._last_interrupt = time.monotonic()
            return
        if time.monotonic() - self._last_interrupt < 2.0:
            await self.action_quit_app()
            return
        self._last_interrupt = time.monotonic()
        self.notify("Press Ctrl+C again to quit.", timeout=2)

    async def action_quit_app(self) -> None:
        """Every way out (/exit, Ctrl+D, Ctrl+Q, Ctrl+C twice, SIGTERM) saves memory first."""
        if self._quitting:
            await self._force_quit()
            return
        self._quitting = True
        self._shutdown_worker = self.run_worker(self._save_and_exit(), name="shutdown")

    async def _save_and_exit(self) -> None:
        if self.replying:  # let the reply close its tool calls before the session is saved
            self._reply_worker.cancel()
            with contextlib.suppress(WorkerError):
                await self._reply_worker.wait()
        if self.assistant.ready:
            await self.query_one(ChatView).add_notice(
                "• Saving this conversation to long-term memory before exit… "
                "(Ctrl+C again to quit now: unfinished work stays in sessions/pending/ and is "
                "summarized at the next start)"
            )
            self.query_one(StatusLine).state = "saving memory…"
        lines = await self.assistant.close()
        self.exit(0, message=_exit_message(lines))

    async def _force_quit(self) -> None:
        if self._shutdown_worker is not None:
            self._shutdown_worker.cancel()
        lines = await self.assistant.close(force=True)
        self.exit(0, message=_exit_message(lines))


def _exit_message(lines: list[str]) -> str | None:
    """What to print after the TUI closes: the summaries' outcome, if any."""
    return "\n".join(f"remecli: {line}" for line in lines) or None


def _import_runtime() -> None:
    """Import the heavy agent runtime off the UI thread (~1 s), so the window paints first."""
    import agentscope.agent  # noqa: F401
    import agentscope.model  # noqa: F401
    import agentscope.tool  # noqa: F401


def run_tui(settings: Settings, *, log_file: Path | None = None) -> int:
    """Run the TUI until the user quits; returns the exit code."""
    app = RemeApp(settings, log_file=log_file)
    app.run()
    return app.return_code or 0
