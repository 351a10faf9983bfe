"""The agent facade: `send(text)` yields core events.

It owns the agent loop (built lazily in `start()` by `remecli.llm.agent_loop.build_agent_loop`,
so a UI can paint before the ~1 s runtime import), the tool registry, the middlewares and the
error policy. Nothing here knows about
Textual. Front-ends drive it through `remecli.commands.chat_session.ChatSession`; a tool call
that needs approval is an `ApprovalRequest` event in the reply's stream, carrying a future.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from remecli.agent import events as ev
from remecli.agent.event_stream import NoticeChannel
from remecli.agent.model_notes import ModelNotes
from remecli.agent.notice_text import cleared_notice
from remecli.config.settings import Settings
from remecli.llm.endpoint import missing_key_message
from remecli.llm.logs import route_runtime_logs

if TYPE_CHECKING:
    from remecli.knowledge.background.records import SummaryOutcome
    from remecli.runtime import FileMemory
    from remecli.tools.checkpoints import Checkpoints

log = logging.getLogger(__name__)


class Assistant:
    """One conversation with the ReAct agent, its tools and its memory."""

    def __init__(
        self, settings: Settings, *, cwd: Path | None = None, approvals: bool = False
    ) -> None:
        from remecli.config.locations import Locations

        self.settings = settings
        self.cwd = (cwd or Path.cwd()).resolve()
        self.locations = Locations.from_settings(settings, self.cwd)
        self.working_dir = self.locations.root
        self.workspace = self.locations.workspace
        self.approvals = approvals  # someone answers ApprovalRequest events
        self.loop: Any = None  # the AgentLoop, once started
        self.agent: Any = None  # the runtime's agent behind it (the middlewares are bound to it)
        self.context: Any = None  # the ContextMiddleware: the session's home
        self.tool_names: list[tuple[str, str]] = []
        self.notices = NoticeChannel()
        self._lock = asyncio.Lock()
        self.memory: FileMemory | None = None  # the memory runtime of this conversation
        self.approval: Any = None  # ApprovalMiddleware: asks before risky tool calls
        self._starting: asyncio.Future[Any] | None = None
        self.tool_context: Any = None  # the tools' ToolContext, once started
        self.model_notes = ModelNotes()  # e.g. "/undo put files back", with the next message

    @functools.cached_property  # made at first use: not needed for the first frame
    def checkpoints(self) -> Checkpoints:  # the workspace files before each reply (/diff, /undo)
        from remecli.tools.checkpoints import Checkpoints

        root, skip = self.locations.checkpoints_dir, (self.working_dir,)
        return Checkpoints(self.workspace, root, self._session_id, skip=skip)

    def _session_id(self) -> str | None:
        return self.context.session_id if self.context is not None else None

    @property
    def model_name(self) -> str:
        """The configured chat model's name."""
        return self.settings.llm.model_name

    def switch_model(self, model_name: str) -> None:
        """Answer with `model_name` from the next model call on (same server and key); the
        background summaries keep the configured model."""
        settings = self.settings.with_changes({"llm.model_name": model_name})
        if self.agent is not None:
            from remecli.llm.model import build_chat_model

            self.loop.use_model(
                build_chat_model(settings.llm, context_size=settings.max_input_length)
            )
        self.settings = settings

    @property
    def ready(self) -> bool:
        """True once `start()` has built the agent."""
        return self.agent is not None

    async def start(self) -> None:
        """Import agentscope and build model, tools, middlewares and agent (idempotent; callers
        racing here share one start)."""
        if self.agent is not None:
            return
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        try:
            await asyncio.shield(self._starting)
        except BaseException:
            if self._starting.done():
                self._starting = None  # a failed start may be retried after a fix
            raise

    async def _start(self) -> None:
        from remecli.agent.memory_commands import resources_gone
        from remecli.agent.runtime_events import follow
        from remecli.runtime import FileMemory, Mode, build_runtime

        route_runtime_logs()
        settings = self.settings.with_changes({"working_dir": str(self.working_dir)})
        runtime = build_runtime(settings, Mode.CHAT, workspace=self.workspace)
        follow(runtime.events, self.notices.put, self._on_summary_done)  # as core events
        memory = FileMemory.over(runtime)  # the seed's API: what tools and commands use
        memory.resources.on_gone = lambda orphans: resources_gone(self, orphans)  # ask first
        await memory.start(wait_for_index=False, recover=not self.settings.resume)
        try:
            from remecli.agent.assistant_loop import build_assistant_agent

            await build_assistant_agent(self, memory)  # sets self.agent last (set: ready)
        except BaseException:
            self.memory = self.loop = self.agent = self.context = None
            await memory.close(wait=False)  # nothing of a failed start stays running
            raise

    def render_prompt(self, now: datetime) -> str:
        """The system prompt: the tools offered, the head of MEMORY.md as it is now."""
        from remecli.agent.system_prompt import build_system_prompt, memory_head

        memory = self.runtime
        settings = memory.settings
        head = memory_head(
            memory.layout.memory_md,
            settings.memory.memory_md_head_lines,
            settings.memory.memory_md_max_tokens,
            memory.counter.count,
        )
        return build_system_prompt(
            language=settings.language,
            workspace=self.workspace,
            working_dir=self.working_dir,
            tools=self.tool_names,
            memory=head,
            now=now,
        )

    async def ask(self, request: Any) -> str:
        """The approval middleware's question, sent out as an event; waits for its answer."""
        if not self.approvals:
            from remecli.tools.approval import NoApprover

            raise NoApprover("no one can answer: remecli is running non-interactively")
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.notices.put(ev.ApprovalRequest(request, answer))
        try:
            return await answer
        finally:
            answer.cancel()  # cancelled under the question: the front-end closes it

    @property
    def runtime(self) -> FileMemory:
        """The memory runtime (exists once `start()` has run)."""
        if self.memory is None:
            raise RuntimeError("the assistant has not started; call start() first")
        return self.memory

    def _on_summary_done(self, outcome: SummaryOutcome) -> None:
        bad = outcome.status in ("failed", "paused")  # paused: no model configured
        self.notices.put(ev.Notice(outcome.message, "warning" if bad else "memory"))

    async def send(self, text: str) -> AsyncGenerator[ev.CoreEvent, None]:
        """Send one user message and stream the reply as core events.

        Errors never escape: they become one `ErrorReport` and the context is repaired so the
        next message works. Cancelling the consuming task interrupts the reply cleanly.
        """
        problem = missing_key_message(self.settings.llm)
        if problem:
            yield ev.ErrorReport(problem, kind="config")
            return
        try:
            await self.start()
        except LookupError as exc:  # resume=<id> that does not exist
            yield ev.ErrorReport(str(exc), kind="config")
            return
        except Exception as exc:
            log.exception("agent start failed")
            yield ev.ErrorReport(f"Could not start the agent: {exc}", kind="config")
            return
        from remecli.agent.context_repair import repair_after_error
        from remecli.agent.translate import EventTranslator
        from remecli.llm.errors import classify
        from remecli.llm.message import Message, Text
        from remecli.tools.mentions import with_attachments

        tell = lambda note: self.notices.put(ev.Notice(note, "warning"))  # noqa: E731
        content = await with_attachments(self.model_notes.attach(text), self.tool_context, tell)
        parts = (Text(content),) if isinstance(content, str) else tuple(content)
        msg = Message("user", parts, name="user")
        self.checkpoints.begin_reply(text)
        translator = EventTranslator()
        async with self._lock:
            try:
                async for kind, item in self.notices.merge(lambda: self.loop.run([msg])):
                    if kind == "item":
                        for core_event in translator.translate(item):
                            yield core_event
                    elif kind == "notice":
                        yield item
                    else:
                        log.error("reply failed", exc_info=item)
                        error = classify(item, self.settings.llm)
                        dropped = repair_after_error(self.loop.state, msg.id)
                        yield ev.ErrorReport(error.message, kind=error.kind, unanswered=dropped)
            finally:
                if translator.interrupted_or_unfinished:
                    await asyncio.shield(self.context.save())
        yield self.context_usage()

    # ------------------------------------------------------------ conversation
    def replay(self) -> list[ev.CoreEvent]:
        """The current context as core events, so a front-end can show a resumed conversation."""
        from remecli.agent.replay import replay_events

        if self.agent is None:
            return []
        state = self.loop.state
        return replay_events(state.summary, state.context())

    def context_usage(self) -> ev.ContextUsage:
        """Tokens the next request would carry, against the window."""
        if self.context is None:
            window = self.settings.max_input_length
            return ev.ContextUsage(0, window, int(window * self.settings.memory_compact_ratio))
        tokens, window, _ = self.context.usage()
        return ev.ContextUsage(tokens, window, self.context.session.threshold_tokens())

    def history_markdown(self) -> str:
        """The uncompressed messages with token statistics, for /history."""
        if self.context is None:
            return "_No messages yet._"
        from remecli.agent.history_page import history_markdown

        return history_markdown(self.context.session)

    async def _idle(
        self, work: Callable[[], Awaitable[Any]], *, yield_result: bool = False
    ) -> AsyncIterator[ev.CoreEvent]:
        """Run a command's work with the agent idle, streaming its notices (and its result)."""
        try:
            await self.start()
        except Exception as exc:
            log.exception("agent start failed")
            yield ev.ErrorReport(f"Could not start the agent: {exc}", kind="config")
            return
        async with self._lock:
            async for kind, item in self.notices.run(work):
                if kind == "notice" or (kind == "item" and yield_result):
                    yield item
                elif kind == "error":
                    log.error("command failed", exc_info=item)
                    yield ev.ErrorReport(f"{type(item).__name__}: {item}")

    async def compact(self, focus: str = "") -> AsyncIterator[ev.CoreEvent]:
        """`/compact [focus]`: checkpoint now, keep recent messages, save the compacted part to
        long-term memory in the background (and retry summaries left pending earlier)."""

        async def work() -> Any:
            done = await self.context.compact_now(self.loop.state, focus, short=True)
            if done.messages_compacted:  # nothing folded (a short chat): no summary either
                self.runtime.hand_over_unsaved()  # the kept messages are saved too
            await self.runtime.tasks.retry_pending(due_only=False)  # asked for: all
            return done

        reported = False
        async for event in self._idle(work, yield_result=True):
            if isinstance(event, ev.CompactionDone):
                if reported:
                    continue
                reported = True
            yield event
        yield self.context_usage()

    async def new_conversation(self) -> AsyncIterator[ev.CoreEvent]:
        """`/new`: save the conversation to long-term memory in the background, start over."""
        handed: list[int] = []

        async def work() -> int:
            handed.append(self.runtime.hand_over_unsaved())
            await self.context.new_conversation()
            self.approval.reset_session()
            return handed[-1]

        async for event in self._idle(work):
            yield event
        if not self.settings.memory.summarize:
            saved = "memory.summarize is off, so the previous one stays only in its transcript."
        elif handed and handed[-1]:
            saved = "the previous one is being saved to memory/ in the background."
        else:
            saved = "the previous one had nothing new to save."
        yield ev.Notice(f"New conversation started; {saved}")
        yield self.context_usage()

    async def clear_conversation(self) -> AsyncIterator[ev.CoreEvent]:
        """`/clear`: forget this conversation (a resumed one: what was said since), unsaved."""
        said = await asyncio.to_thread(cleared_notice, self)  # before: it reads what stays

        async def work() -> str:
            self.approval.reset_session()
            return str(await self.context.new_conversation(forget=True))

        async for event in self._idle(work):
            yield event
        yield ev.Notice(said)
        yield self.context_usage()

    def update_params(
        self,
        max_input_length: int | None = None,
        memory_compact_ratio: float | None = None,
        language: str | None = None,
    ) -> None:
        """Change the window, the compaction ratio or the language at runtime (the memory
        runtime's one `update_params`; before the start, the settings it will be built from)."""
        if self.memory is not None:
            self.memory.update_params(max_input_length, memory_compact_ratio, language)
            self.settings = self.memory.settings  # the runtime made the one validated copy
            return
        self.settings = self.settings.with_runtime_params(
            max_input_length, memory_compact_ratio, language
        )

    def pending_summaries(self) -> int:
        """Background summaries still running."""
        return self.memory.tasks.pending_count if self.memory is not None else 0

    async def close(self, *, force: bool = False) -> list[str]:
        """Every path out goes here: hand the unsaved conversation to the summarizer, save the
        session, then wait for the summaries (or, with `force`, stop them: their messages stay
        recorded in sessions/pending/ and are summarized at the next start or /compact).
        Returns one status line per summary task."""
        if self.agent is None or self.memory is None:
            return []
        self.memory.hand_over_unsaved()  # recorded on disk at once; never handed twice
        return await self.memory.close(wait=not force)
