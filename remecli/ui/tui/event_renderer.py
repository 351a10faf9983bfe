"""Turns core events into chat widgets and status-line updates (the TUI's only view of the core)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from remecli.agent import events as ev
from remecli.agent.notice_text import notice_line
from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.chat_view import ChatView
from remecli.ui.tui.widgets.reply_usage import reply_usage_text
from remecli.ui.tui.widgets.status_line import StatusLine
from remecli.ui.tui.widgets.tool_panel import ToolPanel


class EventRenderer:
    """Stateful per reply: the answer being streamed and the open tool panels."""

    def __init__(self, chat: ChatView, status: StatusLine) -> None:
        self.chat = chat
        self.status = status
        self.message: AssistantMessage | None = None
        self.panels: dict[str, ToolPanel] = {}
        self.cancel_noted = False
        self.waiting: str | None = None
        self.shown_notices: set[str] = set()  # so the exit message repeats none of them
        self.held: list[tuple[str, bool]] = []  # (text, is an error) that came mid-answer
        self.cost: Callable[[Mapping[str, int]], float | None] = lambda usage: None

    async def render(self, event: ev.CoreEvent) -> None:
        """Show one event; notices and errors held back during a streamed answer follow it
        once it ends."""
        await self._render(event)
        if self.message is None:
            await self._show_held()

    async def _render(self, event: ev.CoreEvent) -> None:
        if isinstance(event, ev.UserMessage):
            await self._close_message()
            await self.chat.add_user(event.text)
        elif isinstance(event, ev.TextDelta):
            if self.message is None:
                self.message = await self.chat.add_assistant()
                self.status.state = "answering…"
            await self.message.append(event.text)
        elif isinstance(event, ev.ThinkingDelta):
            if self.message is None:
                self.message = await self.chat.add_assistant()
            await self.message.append_thinking(event.text)
        elif isinstance(
            event, ev.ToolCallStarted | ev.ToolCallReady | ev.ToolOutput | ev.ToolFinished
        ):
            await self._render_tool(event)
        elif isinstance(event, ev.ContextUsage):
            self.context_usage(event)
        elif isinstance(
            event,
            ev.Notice
            | ev.CompactionStarted
            | ev.CompactionDone
            | ev.ToolResultOffloaded
            | ev.DiskFull,
        ):
            line = notice_line(event)
            if line:
                self.shown_notices.add(line)
                self.held.append((f"• {line}", False))  # never inside a streaming answer
            if isinstance(event, ev.CompactionDone) and event.messages_compacted:
                self.status.compactions += 1
        elif isinstance(event, ev.BackgroundTasks):
            self.status.background_tasks = event.running
        elif isinstance(event, ev.SyncStatus):
            self.status.sync = ("!" if event.trouble else "") + event.text
        elif isinstance(event, ev.ErrorReport):  # (a command typed meanwhile, a failed reply)
            hint = " Your message was not answered; press ↑ to edit and resend it."
            self.held.append((event.message + (hint if event.unanswered else ""), True))
        elif isinstance(event, ev.ReplyFinished):
            await self._finish_reply(event)

    async def _render_tool(
        self, event: ev.ToolCallStarted | ev.ToolCallReady | ev.ToolOutput | ev.ToolFinished
    ) -> None:
        """A tool call's panel: opened, given its arguments, fed output, finished."""
        if isinstance(event, ev.ToolCallStarted):
            await self._close_message()
            self.panels[event.call_id] = await self.chat.add_tool(event.call_id, event.name)
            self.set_state(f"running {event.name}…")
        elif isinstance(event, ev.ToolCallReady):
            panel = self.panels.get(event.call_id) or await self.chat.add_tool(
                event.call_id, event.name
            )
            self.panels[event.call_id] = panel
            panel.set_arguments(event.arguments)
        elif isinstance(event, ev.ToolOutput):
            if event.call_id in self.panels:
                self.panels[event.call_id].add_output(event.text)
        else:
            finished = self.panels.pop(event.call_id, None)
            if finished is not None:
                finished.finish(event.state, event.output, event.duration)
            self.set_state("thinking…")

    async def _finish_reply(self, event: ev.ReplyFinished) -> None:
        """The answer closes; its usage goes to the status line; why it stopped, if not done."""
        await self._close_message()
        if event.usage:
            self.status.reply_usage = reply_usage_text(event.usage, self.cost(event.usage))
        if event.reason == "interrupted":
            await self.note_cancelled()
        if event.reason == "exceed_max_iters":
            await self.chat.add_notice(
                "• Stopped: the reply reached its step limit. Say 'continue' to go on."
            )

    def set_waiting(self, text: str | None) -> None:
        """While the user is asked for approval, the status says so (tool events arriving
        meanwhile don't overwrite it); None when the answer is in."""
        self.waiting = text
        self.status.state = text or "running…"

    def set_state(self, text: str) -> None:
        """The status line's activity (unless an approval question is waiting)."""
        if not self.waiting:
            self.status.state = text

    def context_usage(self, usage: ev.ContextUsage) -> None:
        """Update the context meter."""
        self.status.tokens = usage.tokens
        self.status.max_tokens = usage.max_input_length

    async def note_cancelled(self) -> None:
        """Say once per reply that it was cancelled."""
        if not self.cancel_noted:
            self.cancel_noted = True
            await self.chat.add_notice("• Reply cancelled.")

    async def _show_held(self) -> None:
        """The notices and errors held back while an answer streamed, in order."""
        while self.held:
            text, error = self.held.pop(0)
            await (self.chat.add_error(text) if error else self.chat.add_notice(text))

    async def _close_message(self) -> None:
        if self.message is not None:
            await self.message.finish()
            self.message = None

    async def end_reply(self) -> None:
        """Flush whatever is still streaming (also after a cancel)."""
        await self._close_message()
        self.cancel_noted = False
        for panel in self.panels.values():
            panel.finish("interrupted", "", None)  # no duration: it never finished
        self.panels.clear()
        await self._show_held()
