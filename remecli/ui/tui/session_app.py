"""The TUI's session and its life: started from checked settings at once, or, begun from
`Pending` (the settings as read), right after the first frame, the settings checked off the
event loop; saved to memory on every way out."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual.app import App
from textual.worker import Worker

from remecli.ui.start import Pending, Ready, StartFailed
from remecli.ui.tui.themes import DEFAULT_THEME
from remecli.ui.tui.widgets.chat_view import ChatView
from remecli.ui.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:  # the core loads with the session (after the first frame, from `Pending`)
    from remecli.agent.assistant import Assistant
    from remecli.commands.chat_session import ChatSession
    from remecli.config.settings import Settings
    from remecli.ui.tui.app import RemeApp
    from remecli.ui.tui.event_renderer import EventRenderer
    from remecli.ui.tui.frontend import TuiFrontEnd

log = logging.getLogger(__name__)


class SessionApp(App):
    """The app's session: `started` once the settings are checked; `session`, `assistant`."""

    def __init__(
        self,
        settings: Settings | Pending,
        *,
        cwd: Path | None = None,
        log_file: Path | None = None,
    ) -> None:
        super().__init__()
        self.pending = settings if isinstance(settings, Pending) else None
        self.cwd = cwd
        self.log_file = log_file
        self.start_problem: StartFailed | None = None  # printed once the app has closed
        self._session: ChatSession | None = None
        self._waiting: list[str] = []  # sent before the session started: sent once it has
        self.renderer: EventRenderer | None = None
        self._quitting = False
        self._shutdown_worker: Worker | None = None
        self._hangup_task: asyncio.Future[None] | None = None
        self.resume_line: str | None = None  # set on the way out: how to come back
        if self.pending is None:
            self._start_session(settings, log_file)  # type: ignore[arg-type]
            working_dir, theme = Path(self.assistant.working_dir), self.settings.theme
        else:
            working_dir, theme = self.pending.working_dir, self.pending.theme or DEFAULT_THEME
        self.working_dir_shown = working_dir  # the first frame's (the session's, once started)
        self.theme_name = theme

    def _start_session(self, settings: Settings, log_file: Path | None) -> None:
        """The session over checked settings (the core's modules load here)."""
        from remecli.commands.chat_session import ChatSession
        from remecli.ui.tui.frontend import TuiFrontEnd, about_tui

        self.settings = settings
        self.log_file = log_file
        self.frontend: TuiFrontEnd = TuiFrontEnd(cast("RemeApp", self))  # its one subclass
        self._session = ChatSession(settings, cwd=self.cwd, about=about_tui(log_file))

    @property
    def started(self) -> bool:
        """Whether the settings are checked and the session exists (right after the first frame)."""
        return self._session is not None

    @property
    def session(self) -> ChatSession:
        """The chat session (from right after the first frame)."""
        if self._session is None:
            raise RuntimeError("the session starts right after the first frame")
        return self._session

    @property
    def assistant(self) -> Assistant:
        """The session's current agent facade (replaced by /resume)."""
        return self.session.assistant

    async def _start_after_first_frame(self) -> None:
        """Check the settings (and load the core) off the event loop, then start the session;
        a problem with the settings ends the app with its line (`run_tui` prints it)."""
        assert self.pending is not None
        try:
            ready = await asyncio.to_thread(prepare_and_load, self.pending)
        except StartFailed as problem:
            self.start_problem = problem
            self.exit(return_code=problem.code)
            return
        self._start_session(ready.settings, ready.log_file)
        await self.session_started(ready.note)

    async def session_started(self, note: str) -> None:
        """The session has just started after the first frame (`note`: one for the user)."""
        raise NotImplementedError

    def _on_sigterm(self) -> None:
        self.call_later(self.action_quit_app)

    def _on_hangup(self) -> None:
        """The terminal is gone: nothing to restore or draw. Save memory, then leave at once
        (Textual's orderly exit would wait on the dead terminal forever)."""

        async def save_then_leave() -> None:
            try:
                await asyncio.wait_for(self.session.close(), timeout=120)
            except BaseException:
                log.exception("saving on hang-up failed; unsaved work stays in sessions/")
            finally:
                logging.shutdown()
                os._exit(0)

        if not self._quitting:
            self._quitting = True
            if not self.started:
                os._exit(0)  # nothing to save yet
            self._hangup_task = asyncio.ensure_future(save_then_leave())  # kept until it ends

    async def action_quit(self) -> None:
        """Textual's own quit (command palette, bindings) takes the same saving path."""
        await self.action_quit_app()

    async def action_quit_app(self, key: str = "Ctrl+C") -> None:
        """Every way out (/exit, Ctrl+D, Ctrl+Q, Ctrl+C twice, SIGTERM) saves memory first;
        `key` (the key that was pressed) pressed again meanwhile quits at once."""
        if self._quitting:
            await self._force_quit()
            return
        self._quitting = True
        self._shutdown_worker = self.run_worker(self._save_and_exit(key), name="shutdown")

    async def _save_and_exit(self, key: str) -> None:
        from remecli.commands.frontend import saves_on_exit

        if not self.started:  # quit before the session started: nothing to save
            self.exit(0)
            return
        await self.session.stop()  # a running reply closes its tool calls before the save
        if self.assistant.ready and saves_on_exit(self.assistant):  # else: the transcript only
            await self.query_one(ChatView).add_notice(
                "• Saving this conversation to long-term memory before exit… "
                f"({key} again to quit now: unfinished work stays in sessions/pending/ and is "
                "summarized at the next start)"
            )
            self.query_one(StatusLine).state = "saving memory…"
        lines = await self.session.close()
        self.exit(0, message=self._exit_message(lines))

    async def _force_quit(self) -> None:
        if self._shutdown_worker is not None:
            self._shutdown_worker.cancel()
        lines = await self.session.close(force=True) if self.started else []
        self.exit(0, message=self._exit_message(lines))

    def _exit_message(self, lines: list[str]) -> str | None:
        """What to print after the TUI closes: the summaries' outcomes not shown in the chat.
        How to continue this conversation is kept in `resume_line` (`run_tui` prints it)."""
        from remecli.commands.frontend import resume_hint

        self.resume_line = resume_hint(self.assistant) if self.started else None
        shown = self.renderer.shown_notices if self.renderer is not None else set()
        return "\n".join(f"remecli: {line}" for line in lines if line not in shown) or None


def prepare_and_load(pending: Pending) -> Ready:
    """The settings checked, and the modules the session needs loaded (off the event loop)."""
    ready = pending.prepare()
    import remecli.commands.chat_session  # noqa: F401
    import remecli.ui.tui.event_renderer  # noqa: F401
    import remecli.ui.tui.frontend  # noqa: F401

    return ready
