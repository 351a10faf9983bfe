"""The memory runtime's middleware: hooks (`remecli.llm.middleware`) that call its `conversation`.

Hooks used:
- `before_step` runs before every reasoning step (having it keeps the runtime's own compression
  off); it measures the system prompt and tool schemas, then lets the conversation sync, report
  usage and, past the threshold, offload long tool results and compact. Tool results enter the
  context whole: each tool caps its own output.
- `model_call`: on "context length exceeded", compact hard and retry the call once.
- `reply_ended`: save the state after each reply that ran to its end (`autosave`).
The conversation rewrites the saved state it binds to (`LoopState.holder`): that state is still
the runtime's own. Construct the agent with `**agent_kwargs()` so the runtime's own truncation
and runtime-state injection are off.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from remecli.config.settings import Settings
from remecli.conversation.conversation import CompactedFn, Conversation, NoticeFn
from remecli.conversation.notices import (
    CompactionDone,
    CompactionStarted,
    ContextUsage,
    MemoryNotice,
    ToolResultOffloaded,
)
from remecli.llm.errors import is_context_overflow
from remecli.llm.message import Message
from remecli.llm.middleware import CallModel, LoopState, Middleware, ReplyEnd
from remecli.runtime import FileMemory, Mode, Runtime, build_runtime

log = logging.getLogger(__name__)

__all__ = [
    "CompactionDone",
    "CompactionStarted",
    "ContextMiddleware",
    "ContextUsage",
    "MemoryNotice",
    "ToolResultOffloaded",
    "agent_kwargs",
]


def agent_kwargs() -> dict[str, Any]:
    """`Agent(...)` arguments that leave the context to this middleware (the ones the agent
    loop factory gives the assistant)."""
    from remecli.llm.agentscope_adapter import agent_options

    return agent_options(confined=False)


class ContextMiddleware(Middleware):
    """Binds one agent to the memory runtime's conversation."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        memory: Runtime | FileMemory | None = None,
        on_compacted: CompactedFn | None = None,
        on_notice: NoticeFn | None = None,
        autosave: bool = True,
    ) -> None:
        if memory is None:
            if settings is None:
                raise ValueError("ContextMiddleware needs settings or a memory runtime")
            memory = build_runtime(settings, Mode.CONVERSATION)
        self.memory = memory
        self.conversation: Conversation = memory.conversation
        if on_compacted is not None:
            self.on_compacted = on_compacted
        if on_notice is not None:
            self.on_notice = on_notice
        self.autosave = autosave
        self.loop: LoopState | None = None  # the agent loop it is bound to

    # ------------------------------------------------------------------ views of the runtime
    @property
    def session(self) -> Any:
        """The conversation's token-aware session."""
        return self.conversation.session

    @property
    def store(self) -> Any:
        """The one tool-result store."""
        return self.conversation.store

    @property
    def working_dir(self) -> Any:
        """The working-dir layout."""
        return self.memory.layout

    @property
    def counter(self) -> Any:
        """The one token counter."""
        return self.memory.counter

    @property
    def keep_recent_tokens(self) -> int:
        """Recent tokens kept verbatim by a compaction."""
        return self.conversation.keep_recent_tokens

    @keep_recent_tokens.setter
    def keep_recent_tokens(self, tokens: int) -> None:
        self.conversation.keep_recent_tokens = tokens

    @property
    def transcript(self) -> Any:
        """The append-only transcript of the current conversation."""
        return self.conversation.transcript

    @property
    def session_id(self) -> str:
        """Id of the conversation (names its transcript and state file)."""
        return self.conversation.session_id

    @property
    def on_compacted(self) -> CompactedFn | None:
        """Called with the messages a compaction folded away (default: the runtime's hand-over)."""
        return self.conversation.on_compacted

    @on_compacted.setter
    def on_compacted(self, callback: CompactedFn | None) -> None:
        self.conversation.on_compacted = callback

    @property
    def on_notice(self) -> NoticeFn | None:
        """Called with each memory notice (usage, compaction, offload)."""
        return self.conversation.on_notice

    @on_notice.setter
    def on_notice(self, callback: NoticeFn | None) -> None:
        self.conversation.on_notice = callback

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Create the working-dir folders and remove expired tool results."""
        import asyncio

        await asyncio.to_thread(self.memory.layout.ensure)
        await asyncio.to_thread(self.store.cleanup)

    def attach(self, loop: LoopState) -> None:
        """Bind to the agent `loop` (done automatically by the first hook)."""
        self.loop = loop
        self.conversation.bind(loop.holder)

    def update_params(
        self,
        max_input_length: int | None = None,
        memory_compact_ratio: float | None = None,
        language: str | None = None,
    ) -> None:
        """Change window, ratio or language at runtime (the runtime's one `update_params`)."""
        self.memory.update_params(max_input_length, memory_compact_ratio, language)

    def usage(self) -> tuple[int, int, float]:
        """`(estimated tokens, max_input_length, percent)` for a status line, O(1)."""
        return self.conversation.usage()

    async def save(self) -> Path:
        """Save the conversation's state file; returns its path."""
        return await self.conversation.save()

    async def restore(self, ref: str) -> Any:
        """The `AgentState` of conversation `ref` (`last` or an id) to build the agent with."""
        return await self.conversation.restore(ref)

    async def new_conversation(self, *, forget: bool = False) -> str:
        """Start over (`/new`, or `/clear` with `forget=True`); returns the new session id."""
        return await self.conversation.new_conversation(forget=forget)

    async def compact_now(
        self, loop: LoopState | None = None, focus: str = "", *, short: bool = False
    ) -> CompactionDone:
        """Compact now (for `/compact [focus]`), keeping the recent messages (see
        `Conversation.compact_now` for `short`)."""
        if loop is not None:
            self.attach(loop)
        await self.conversation.sync()
        await self.measure_overhead()
        return await self.conversation.compact_now(focus, short=short)

    # ------------------------------------------------------------------ hooks
    async def before_step(self, loop: LoopState) -> None:
        """Before each reasoning step: adopt new messages, compact past the threshold."""
        self.attach(loop)
        await self.conversation.sync()
        await self.measure_overhead()
        self.conversation.report_usage()
        await self.conversation.auto_compact()

    async def model_call(self, loop: LoopState, messages: list[Message], call: CallModel) -> object:
        """On "context length exceeded": compact hard and retry the call once."""
        try:
            return await call(messages)
        except Exception as exc:
            if not is_context_overflow(exc):
                raise
            log.warning("context overflow reported by the provider; compacting: %s", exc)
        self.attach(loop)
        await self.conversation.compact_for_overflow()
        head = [m for m in messages[:1] if m.role == "system"]
        if loop.summary:
            head.append(Message.user(loop.summary))
        return await call(head + loop.context())

    async def reply_started(self, loop: LoopState) -> None:
        """At the start of each reply: bind to its loop."""
        self.attach(loop)

    async def reply_ended(self, loop: LoopState, end: ReplyEnd) -> None:
        """Save the state once the reply ran to its end (not when stopped)."""
        if self.autosave and not end.stopped:
            await self.conversation.save()

    # ------------------------------------------------------------------ internals
    async def measure_overhead(self) -> None:
        """Tokens of the system prompt and tool schemas, sent with every call."""
        loop = self.loop
        if loop is None:
            return
        prompt = await loop.system_prompt()
        tools = await loop.tool_schemas()
        tools_text = json.dumps(tools, ensure_ascii=False) if tools else ""
        counter = self.memory.counter
        self.session.overhead_tokens = counter.count(prompt) + counter.count(tools_text) + 4
