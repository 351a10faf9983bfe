"""The one core session every front-end drives (in the spirit of toad: the core talks to the UI
only through messages, and a question carries a future).

`submit(text)` turns a typed line into a slash command or the agent's reply; a message or a
conversation-changing command typed while a reply runs is queued and runs after it, in order.
`resume(session_id)` and `new()` replace or restart the conversation here, never in a
front-end. Everything the front-end shows arrives on one stream, `events()`: the agent's output,
approval requests (with a future), retries, notices, compaction and status updates, command
output and screen requests. The front-end renders them and answers the futures.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from remecli.agent import events as ev
from remecli.agent.assistant import Assistant
from remecli.commands import session_events as se
from remecli.commands.auto_sync import ChatAutoSync
from remecli.commands.frontend import FrontEndInfo
from remecli.commands.registry import COMMANDS, SlashCommand, dispatch
from remecli.commands.typed_input import CommandCall, UnknownCommand, read_input
from remecli.config.settings import Settings
from remecli.llm.retry_notices import RETRY_SINK

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Work:
    """One submitted line that runs with the conversation to itself (a reply or /new …)."""

    text: str
    command: SlashCommand | None = None
    arg: str = ""


class ChatSession:
    """One conversation as a front-end sees it: lines in, one event stream out."""

    def __init__(
        self,
        settings: Settings,
        *,
        cwd: Path | None = None,
        about: FrontEndInfo | None = None,
        approvals: bool = True,
    ) -> None:
        self.settings = settings
        self.cwd = cwd
        self.about = about or FrontEndInfo()
        self.approvals = approvals  # False: a call needing approval fails (non-interactive)
        self._events: asyncio.Queue[se.SessionEvent] = asyncio.Queue()
        self._waiting: deque[_Work] = deque()
        self._current: asyncio.Task[None] | None = None
        self._side: set[asyncio.Task[None]] = set()
        self._closing = False
        self._typed_messages = 0
        self.boot_error: str | None = None
        self._booting: asyncio.Task[None] | None = None
        self._syncing: asyncio.Task[None] | None = None  # sync over git (sync.auto)
        self.assistant = self._new_assistant(settings)
        self.auto_sync = ChatAutoSync(
            settings, lambda: self.assistant.runtime, lambda: self.busy, self.emit
        )

    def _new_assistant(self, settings: Settings) -> Assistant:
        assistant = Assistant(settings, cwd=self.cwd, approvals=self.approvals)
        assistant.notices.listener = self.emit  # notices while no reply runs join the stream
        return assistant

    # ------------------------------------------------------------------ the stream
    def emit(self, event: se.SessionEvent) -> None:
        """Put one event on the stream (the core's callbacks and retries end up here)."""
        self._events.put_nowait(event)
        written = isinstance(event, ev.BackgroundTasks) and event.running == 0
        if written or (isinstance(event, ev.Notice) and event.kind == "memory"):
            self.auto_sync.poke()  # a card or a dream was written: other machines want it

    async def events(self) -> AsyncIterator[se.SessionEvent]:
        """The one stream of everything to show, in order (one consumer)."""
        while True:
            yield await self._events.get()

    @property
    def unread(self) -> int:
        """Events emitted and not yet taken from the stream."""
        return self._events.qsize()

    @property
    def busy(self) -> bool:
        """True while a reply or a conversation-changing command runs or waits in the queue."""
        running = self._current is not None and not self._current.done()
        return running or bool(self._waiting)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run `work` as a task whose model calls report their retries to this stream."""
        context = contextvars.copy_context()
        context.run(RETRY_SINK.set, self.emit)
        return asyncio.get_running_loop().create_task(work, context=context)

    # ------------------------------------------------------------------ input
    def submit(self, text: str) -> None:
        """A typed line: a slash command, or a message for the model (queued while busy)."""
        typed = read_input(text)
        if isinstance(typed, UnknownCommand):
            self.emit(ev.ErrorReport(typed.message, kind="command"))
            self.emit(se.InputHandled(text))
        elif isinstance(typed, CommandCall):
            work = _Work(text, typed.command, typed.arg)
            if typed.command.needs_idle:
                self._enqueue(work)
            else:  # /help, /copy …: at once, even while a reply runs
                task = self._spawn(self._side_command(work))
                self._side.add(task)
                task.add_done_callback(self._side.discard)
        else:
            self.send(typed.text)

    def send(self, text: str) -> None:
        """A message for the model as it is (no command parsing: one-shot questions)."""
        if self.boot_error:
            self.emit(ev.ErrorReport(self.boot_error + " Fix the setting and restart remecli."))
            self.emit(se.InputHandled(text))
            return
        self._typed_messages += 1
        self._enqueue(_Work(text))

    def new(self) -> None:
        """Start a new conversation (as /new: the current one is saved in the background)."""
        self._enqueue(_Work("/new", COMMANDS["new"]))

    def resume(self, session_id: str) -> None:
        """Continue saved conversation `session_id` in place of this one (saved first)."""
        self._enqueue(_Work(f"/resume {session_id}", COMMANDS["resume"], session_id))

    def _enqueue(self, work: _Work) -> None:
        if self.busy:
            self._waiting.append(work)
            self.emit(
                se.UserTurn(work.text, True)
                if work.command is None
                else se.CommandQueued(work.text)
            )
            return
        if work.command is None:
            self.emit(se.UserTurn(work.text, queued=not self.assistant.ready))
        self._begin(work)

    def _begin(self, work: _Work) -> None:
        self._current = self._spawn(self._run(work))
        self._current.add_done_callback(self._next)

    def _next(self, _done: asyncio.Task[None]) -> None:
        if self._waiting and not self._closing:
            self._begin(self._waiting.popleft())

    def cancel(self) -> bool:
        """Cancel the running reply (or conversation-changing command); False if none runs."""
        if self._current is None or self._current.done():
            return False
        self._current.cancel()
        return True

    # ------------------------------------------------------------------ running
    async def _run(self, work: _Work) -> None:
        try:
            await self._booted()
            if work.command is None:
                await self._reply(work.text)
            else:
                self.emit(se.WorkStarted(f"/{work.command.name}…"))
                try:
                    await self._command(work)
                finally:
                    self.emit(se.WorkEnded())
                    self._usage()
        finally:
            self.emit(se.InputHandled(work.text))

    async def _reply(self, text: str) -> None:
        self.emit(se.WorkStarted("thinking…"))
        cancelled = False
        try:
            if not self.assistant.ready:
                with contextlib.suppress(Exception):  # a failed start is reported by send()
                    await self.assistant.start()
            self.emit(se.MessageSent(text))
            async with contextlib.aclosing(self.assistant.send(text)) as stream:
                async for event in stream:
                    self.emit(event)
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            self.emit(se.WorkEnded(cancelled))
            self._usage()

    async def _side_command(self, work: _Work) -> None:
        try:
            await self._command(work)
            self._usage()
        finally:
            self.emit(se.InputHandled(work.text))

    async def _command(self, work: _Work) -> None:
        assert work.command is not None
        try:
            async for event in dispatch(self.assistant, work.command, work.arg, self.about, self):
                self.emit(event)
        except Exception as exc:
            log.exception("/%s failed", work.command.name)
            self.emit(ev.ErrorReport(f"/{work.command.name} failed: {exc}", kind="command"))

    def _usage(self) -> None:
        if self.assistant.ready:
            self.emit(self.assistant.context_usage())

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Load the agent runtime (off the UI thread) and start the agent; a resumed
        conversation is replayed, so the front-end shows where it left off."""
        self._booting = self._spawn(self._boot())
        await self._booting

    async def _booted(self) -> None:
        """Wait for a boot in progress: it imports the runtime in a thread, and starting the
        agent here meanwhile would import it again on the event loop (a frozen screen)."""
        boot = self._booting
        if boot is not None and not boot.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(boot)

    async def _boot(self) -> None:
        self.emit(se.Activity("loading agent…"))
        try:
            await asyncio.to_thread(_import_runtime)
            await self.assistant.start()
        except Exception as exc:
            log.exception("agent start failed")
            known = isinstance(exc, LookupError)  # e.g. resume=<bad id>: the message says all
            where = (
                f" Details in {self.about.log_file}." if self.about.log_file and not known else ""
            )
            self.boot_error = f"Could not start the agent: {str(exc).rstrip('.')}.{where}"
            self.emit(ev.ErrorReport(self.boot_error))
            self.emit(se.Activity("error"))
            return
        if self.settings.resume and not self.busy and not self._typed_messages:
            self.emit(self._replay())
        if not self.busy:
            self.emit(se.Activity("ready"))
        self._usage()
        self._syncing = self._spawn(self.auto_sync.run())

    async def switch_to(self, session_id: str) -> AsyncIterator[se.SessionEvent]:
        """Save the current conversation, then continue `session_id` in its place (/resume)."""
        yield se.Resuming(session_id)
        await self.assistant.close(force=True)  # unfinished summaries stay pending: retried
        from remecli.conversation.started_with import with_resumed_settings

        settings = self.settings.with_changes({"resume": session_id})  # its model and endpoint:
        self.assistant = self._new_assistant(with_resumed_settings(settings, ()))
        yield se.ClearView()
        try:
            await self.assistant.start()
        except Exception as exc:
            log.exception("resume failed")
            yield ev.ErrorReport(f"Could not resume {session_id}: {exc}")
            return
        replay = self._replay()
        yield replay
        yield se.Resumed(session_id, sum(isinstance(e, ev.UserMessage) for e in replay.events))

    def _replay(self) -> se.Replay:
        """The resumed conversation as events, with the compactions it went through."""
        context = self.assistant.context
        return se.Replay(self.assistant.replay(), context.session.checkpoints if context else 0)

    async def stop(self) -> None:
        """Cancel the running work and drop the queue (before a save on the way out)."""
        self._closing = True
        self._waiting.clear()
        if self._syncing is not None:
            self._syncing.cancel()  # a sync is safe to stop: the next one completes it
        current = self._current
        if current is not None and not current.done():
            current.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await current

    async def close(self, *, force: bool = False) -> list[str]:
        """Stop, then save: hand the conversation to the summarizer and wait for the summaries
        (with `force`, stop them; they stay pending). One status line per summary task."""
        await self.stop()
        return await self.assistant.close(force=force)


def _import_runtime() -> None:
    """Import the heavy agent runtime off the UI thread (~1 s), so the window paints first."""
    import remecli.llm.agentscope_adapter  # noqa: F401  (the agent, messages, tools)
    import remecli.llm.agentscope_model  # noqa: F401
