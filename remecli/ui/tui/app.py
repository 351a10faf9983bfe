"""The Textual chat app: paints at once (from the settings as read, before they are validated),
checks the settings and starts the session right after, boots the agent in the background once it
is wanted (the first key typed, a resumed conversation), renders core events."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from textual.actions import SkipAction
from textual.app import App, ComposeResult
from textual.binding import Binding

from remecli.config.locations import Locations, memory_label
from remecli.ui.start import Pending
from remecli.ui.tui import collector_pauses, early_keys, hangup
from remecli.ui.tui.mention_completion import complete_at_cursor, options_at_cursor
from remecli.ui.tui.palette import SlashCommands
from remecli.ui.tui.session_app import SessionApp
from remecli.ui.tui.themes import apply_themes
from remecli.ui.tui.widgets.chat_input import ChatInput, InputHistory
from remecli.ui.tui.widgets.chat_view import ChatView
from remecli.ui.tui.widgets.command_menu import CommandMenu
from remecli.ui.tui.widgets.status_line import StatusLine
from remecli.ui.tui.widgets.tool_panel import ToolPanel

if TYPE_CHECKING:  # the core loads after the first frame (see `RemeApp.on_ready`)
    from textual.worker import Worker

    from remecli.config.settings import Settings
    from remecli.ui.tui.event_renderer import EventRenderer

log = logging.getLogger(__name__)


class RemeApp(SessionApp):
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
        Binding("ctrl+q", "quit_app('Ctrl+Q')", "Quit", priority=True, show=False),
        Binding("tab", "complete", "Complete", show=False, priority=True),
        Binding("ctrl+o", "toggle_tool_panel", "Tool panel", show=False, priority=True),
        Binding("pageup", "scroll_chat('page_up')", show=False, priority=True),
        Binding("pagedown", "scroll_chat('page_down')", show=False, priority=True),
        Binding("shift+up", "scroll_chat('up')", show=False, priority=True),
        Binding("shift+down", "scroll_chat('down')", show=False, priority=True),
        Binding("home", "scroll_chat('home')", show=False, priority=True),
        Binding("end", "scroll_chat('end')", show=False, priority=True),
        Binding("ctrl+home", "scroll_chat('home', True)", show=False, priority=True),
        Binding("ctrl+end", "scroll_chat('end', True)", show=False, priority=True),
    ]

    def __init__(
        self,
        settings: Settings | Pending,
        *,
        cwd: Path | None = None,
        log_file: Path | None = None,
    ) -> None:
        super().__init__(settings, cwd=cwd, log_file=log_file)
        self._showing = False  # an event is being rendered
        self._last_interrupt = 0.0
        self._boot_started = False
        self._starting: Worker[None] | None = None  # checks the settings after the first frame
        # chosen before the stylesheet is first parsed (see select_theme); a problem shows later
        self._theme_problem = apply_themes(self, self.working_dir_shown, self.theme_name)

    def compose(self) -> ComposeResult:
        yield ChatView(id="chat")
        menu = CommandMenu(id="command-menu")
        self.input_history = InputHistory(Locations(self.working_dir_shown).input_history)
        chat_input = ChatInput(self.input_history, id="input")
        chat_input.completion_menu = menu
        yield menu
        yield chat_input
        yield StatusLine(id="status")

    async def on_mount(self) -> None:
        if self._theme_problem:
            self.notify(self._theme_problem, severity="error", timeout=10)
        self.query_one(StatusLine).working_dir = memory_label(self.working_dir_shown)
        self.query_one(ChatInput).focus()
        if self.started:
            await self._show_session()

    async def _show_session(self) -> None:
        """The started session on screen: its status, its events, the welcome."""
        from remecli.llm.endpoint import missing_key_message
        from remecli.llm.pricing import reply_cost
        from remecli.ui.tui.event_renderer import EventRenderer

        status = self.query_one(StatusLine)
        status.model_name = self.assistant.model_name
        status.max_tokens = self.settings.max_input_length
        self.renderer = EventRenderer(self.query_one(ChatView), status)
        self.renderer.cost = lambda usage: reply_cost(usage, self.assistant.settings.llm)
        self.run_worker(self._show_events(), name="events", group="events")
        chat = self.query_one(ChatView)
        await chat.add_notice(
            "remecli — type a message, /help for commands. Memory lives in "
            f"{self.assistant.working_dir}.",
            classes="welcome",
        )
        problem = missing_key_message(self.settings.llm)
        if problem:
            await chat.add_error(problem)

    async def _show_events(self) -> None:
        """Render the session's one event stream, in order, for as long as the app runs."""
        from remecli.commands import session_events as se

        async for event in self.session.events():
            self._showing = True
            try:
                if not await self.frontend.show(event):
                    await self._show_work(event)
                if event == se.Activity("ready"):
                    self._settle()  # booted
            except Exception:
                log.exception("showing %r failed", event)
            finally:
                self._showing = False

    async def _show_work(self, event: object) -> None:
        """A reply's or command's end, or the agent's own output."""
        from remecli.commands import session_events as se

        if isinstance(event, se.WorkEnded):
            if event.cancelled:
                await self.view.note_cancelled()
            await self.view.end_reply()
            self.status.state = "ready"
            self._settle()
        elif isinstance(event, se.InputHandled):
            if not self.session.busy:
                self._settle()
        else:
            await self.view.render(event)  # type: ignore[arg-type]

    def on_unmount(self) -> None:
        collector_pauses.release()

    def _settle(self) -> None:
        """Idle again: collect and freeze, once the screen has let go of removed widgets."""

        def settle() -> None:
            if self.is_running and not self._quitting:  # leaving releases everything
                if not self.replying:
                    self.query_one(ChatView).release_drawings()
                collector_pauses.settle()

        self.call_after_refresh(settle)

    def on_ready(self) -> None:
        """First frame is on screen, the prompt takes input. Begun from `Pending`, the settings
        are checked and the session started now, in the background (a line sent meanwhile
        waits for it). The agent runtime (agentscope, the model clients, the token encoding,
        the memory index: ~190 MB) loads once it is wanted: at the first key typed, or now for
        a resumed conversation that is shown at once. An app left open and untouched stays
        light."""
        if self.started:
            self._session_ready()
        elif self._starting is None:  # once: Textual also runs a subclass's base on_ready
            # a coroutine *function*: an app left before the worker ran leaves no coroutine
            # un-awaited (the result type is named: Textual's overloads would infer Never)
            self._starting = self.run_worker(
                self._start_after_first_frame, name="start", group="start"
            )
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGTERM, self._on_sigterm)
            hangup.install(loop, self._on_hangup)  # closed terminal, dropped SSH: out in seconds

    async def session_started(self, note: str) -> None:
        await self._show_session()
        if note:
            await self.chat.add_notice(note)
        self._session_ready()

    def _session_ready(self) -> None:
        """The session is on screen: boot now if it is already wanted, send what waited."""
        wanted = self.settings.resume or self._waiting or self.query_one(ChatInput).text
        if wanted or not self._working_dir_usable():
            self.boot()  # the conversation is shown, or the problem reported, at once
        else:
            self.status.state = "ready"  # it takes input now
        self._settle()  # start-up's garbage goes, the rest is frozen; collecting again
        waiting, self._waiting = self._waiting, []
        for text in waiting:
            self.session.submit(text)
        self.query_one(CommandMenu).show_for(self.query_one(ChatInput).text)  # typed meanwhile

    def _working_dir_usable(self) -> bool:
        from remecli.config.logs import WorkingDirUnusable, check_writable

        try:
            check_writable(self.settings, self.cwd)
        except WorkingDirUnusable:
            return False
        return True

    def boot(self) -> None:
        """Start the agent in the background (once; typing starts it, so by the time a
        message is sent the runtime has mostly loaded)."""
        if not self._boot_started:
            self._boot_started = True
            self.run_worker(self.session.start(), name="boot", group="boot")

    def submit(self, text: str) -> None:
        """A typed line (or a palette command) for the session; the agent boots first."""
        if not self.started:
            self._waiting.append(text)
            return
        self.boot()
        self.session.submit(text)

    async def action_ctrl_d(self) -> None:
        """Ctrl+D quits on an empty prompt (as in a shell); otherwise it deletes forward."""
        box = self.query_one(ChatInput)
        if self.screen is self.screen_stack[0] and box.text:
            box.action_delete_right()
            return
        await self.action_quit_app("Ctrl+D")

    # ----------------------------------------------------------------- input
    def on_key(self, event) -> None:
        """Typing while focus is elsewhere on the chat screen (a tool panel) goes to the prompt;
        typing on a page or dialog that is not one of its keys goes to the prompt underneath,
        kept for when it closes (the user was writing their next message, not to the page)."""
        box = self.screen_stack[0].query_one(ChatInput)
        if (
            not event.is_printable
            or self.focused is box
            or event.key in self.screen.active_bindings
        ):
            return  # a page's or dialog's own key (q, y, n, a) is theirs alone
        if self.screen is self.screen_stack[0]:
            box.focus()
        box.insert(event.character or "")
        event.stop()

    def on_chat_input_edited(self, message: ChatInput.Edited) -> None:
        if not self.started:
            return  # the session boots once it has started (`_session_ready`)
        self.boot()
        paths = options_at_cursor(self.query_one(ChatInput), self.assistant.workspace)
        if paths is not None:  # an `@path` mention is being typed
            self.query_one(CommandMenu).show_paths([option.path for option in paths])
            return
        self.query_one(CommandMenu).show_for(message.text)

    async def on_chat_input_submitted(self, message: ChatInput.Submitted) -> None:
        self.query_one(CommandMenu).show_for("")
        self.submit(message.text)

    def action_complete(self) -> None:
        menu = self.query_one(CommandMenu)
        name = menu.selected_name()
        if name is None:
            self.screen.focus_next()
            return
        box = self.query_one(ChatInput)
        if menu.mode == "paths":
            complete_at_cursor(box, name)
            return
        box.load_text(f"/{name} ")
        box.move_cursor(box.document.end)
        menu.show_for("")

    @property
    def chat(self) -> ChatView:
        """The conversation view."""
        return self.query_one(ChatView)

    @property
    def view(self) -> EventRenderer:
        """The renderer of core events (exists once the screen is composed)."""
        if self.renderer is None:
            raise RuntimeError("the chat view is not mounted yet")
        return self.renderer

    @property
    def status(self) -> StatusLine:
        """The status line."""
        return self.query_one(StatusLine)

    @property
    def replying(self) -> bool:
        """True while a reply or a conversation-changing command runs or waits, or what it
        produced is still being shown."""
        if not self.started:
            return False
        return self.session.busy or self.session.unread > 0 or self._showing

    # --------------------------------------------------------------- actions
    def action_cancel_reply(self) -> None:
        if self.query_one(CommandMenu).is_open:
            self.query_one(CommandMenu).show_for("")
            return
        if self.started:
            self.session.cancel()

    def action_toggle_tool_panel(self) -> None:
        """Ctrl+O: open or close the focused tool panel, else the newest one (main screen)."""
        if self.screen is not self.screen_stack[0]:
            raise SkipAction()
        panels = list(self.query(ToolPanel))
        focused = self.focused
        chosen = next((p for p in panels if focused is not None and p in focused.ancestors), None)
        chosen = chosen or (panels[-1] if panels else None)
        if chosen is None:
            self.notify("No tool panel in this conversation yet.", timeout=2)
            return
        chosen.collapsed = not chosen.collapsed
        if not chosen.collapsed:
            self.chat.scroll_to_widget(chosen, animate=False)

    def action_scroll_chat(self, where: str, always: bool = False) -> None:
        """Keyboard scrolling of the conversation from the prompt (main screen only)."""
        if self.screen is not self.screen_stack[0]:
            raise SkipAction()
        box = self.query_one(ChatInput)
        if where in ("home", "end") and not always and box.text:
            raise SkipAction()  # Home/End edit the prompt while it holds text
        if where in ("up", "down") and self.query_one(CommandMenu).is_open:
            raise SkipAction()
        self.chat.scroll_by_key(where)

    async def action_interrupt(self) -> None:
        """Ctrl+C: copy a selection; otherwise close an approval dialog (deny) and cancel the
        reply; otherwise twice to quit."""
        if self._quitting:
            await self._force_quit()
            return
        if self.started and self.frontend.copy_selection():
            return
        if self.started:
            self.frontend.close_approval()  # the dialog never outlives a cancel: denied
        if self.started and self.session.cancel():
            self._last_interrupt = time.monotonic()
            return
        if time.monotonic() - self._last_interrupt < 2.0:
            await self.action_quit_app()
            return
        self._last_interrupt = time.monotonic()
        self.notify("Press Ctrl+C again to quit.", timeout=2)


def run_tui(settings: Settings | Pending, *, log_file: Path | None = None) -> int:
    """Run the TUI until the user quits; returns the exit code."""
    app = RemeApp(settings, log_file=log_file)
    try:
        app.run()
    finally:
        early_keys.restore()  # the terminal as the user had it (see `early_keys`)
        collector_pauses.release()  # collecting again, even if no frame was ever drawn
    if app.start_problem is not None:  # a setting to change: as before the TUI existed
        print(f"remecli: {app.start_problem}", file=sys.stderr)
        return app.start_problem.code
    if app.resume_line:  # printed, not rendered: a console would wrap or crop the command
        print(f"remecli: {app.resume_line}", file=sys.stderr)
    return app.return_code or 0
