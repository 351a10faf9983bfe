"""The app-owned context of the agent: token accounting, auto-compaction, offload, transcript.

`ContextMiddleware` is the home of the conversation's `Session`. Hooks used (agentscope 2.0.11):
- `on_compress_context` runs before every reasoning step. It never calls `next_handler`, so the
  built-in compression stays off. It adopts the new messages (transcript appended), and when the
  context passes `max_input_length × memory_compact_ratio` it offloads oversized tool results,
  then compacts the older messages into a checkpoint, keeping the newest `keep_recent_tokens`
  (cut between atoms: a tool call never loses its result). One try per step: if the model
  fails while the context fits the window, the messages are kept (`CompactionDone` with
  `messages_compacted=0` and `error`); over the window the fallback checkpoint is applied.
- `on_acting` offloads an oversized tool result as it enters the context; the UI has already
  received the full output through the `ToolResultTextDeltaEvent`s of the tool's chunks.
- `on_model_call`: on "context length exceeded", force a compaction and retry once.
- `on_reply`: save the state after each completed reply (`autosave`).
Construct the agent with `**agent_kwargs()` so agentscope's own truncation and runtime-state
injection are off.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

from agentscope.middleware import MiddlewareBase

from remecli.config.settings import Settings
from remecli.llm.errors import is_context_overflow
from remecli.llm.tokens import get_token_counter
from remecli.memory import persistence
from remecli.memory.compactor import Compactor
from remecli.memory.layout import WorkingDir
from remecli.memory.notices import (
    CompactionDone,
    CompactionStarted,
    ContextUsage,
    MemoryNotice,
    ToolResultOffloaded,
)
from remecli.memory.session import Session
from remecli.memory.tool_results import ToolResultStore
from remecli.memory.transcript import Transcript

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
    """`Agent(...)` arguments that leave the context to this middleware."""
    from agentscope.agent import ContextConfig, InjectionConfig

    return {
        "context_config": ContextConfig(tool_result_limit=10**9, compression_tool_enabled=False),
        "injection_config": InjectionConfig(inject_runtime_state=False),
    }


class ContextMiddleware(MiddlewareBase):
    """Owns the session of one agent: accounting, compaction, offload, transcript, resume."""

    def __init__(
        self,
        settings: Settings,
        *,
        working_dir: WorkingDir | Path | str | None = None,
        compactor: Compactor | None = None,
        on_compacted: Callable[[list[Any]], Any] | None = None,
        on_notice: Callable[[MemoryNotice], Any] | None = None,
        display_root: Path | str | None = None,
        autosave: bool = True,
    ) -> None:
        self.settings = settings
        root = working_dir if working_dir is not None else settings.working_dir
        self.working_dir = root if isinstance(root, WorkingDir) else WorkingDir(Path(root))
        self.counter = get_token_counter(settings.memory.token_encoding)
        self.session = Session(
            self.counter,
            max_input_length=settings.max_input_length,
            memory_compact_ratio=settings.memory_compact_ratio,
            language=settings.language,
        )
        self.store = ToolResultStore(
            self.working_dir.tool_result_dir,
            settings.memory.tool_result_threshold,
            settings.memory.retention_days,
            display_root=display_root or self.working_dir.root,
        )
        self.keep_recent_tokens = settings.memory.keep_recent_tokens
        self.compactor = compactor
        self.on_compacted = on_compacted
        self.on_notice = on_notice
        self.autosave = autosave
        self.agent: Any = None
        self._compact_lock = asyncio.Lock()
        self._io_lock = asyncio.Lock()

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Create the working-dir folders and remove expired tool results."""
        await asyncio.to_thread(self.working_dir.ensure)
        await asyncio.to_thread(self.store.cleanup)

    async def close(self) -> None:
        """Save the conversation and remove expired tool results."""
        if self.agent is not None:
            await self.save()
        await asyncio.to_thread(self.store.cleanup)

    def attach(self, agent: Any) -> None:
        """Bind to `agent` (done automatically by the first hook)."""
        if self.agent is agent:
            return
        self.agent = agent
        if self.compactor is None:
            self.compactor = Compactor(
                agent.model,
                self.counter,
                self.session.language,
                self.session.max_input_length,
                max_retries=self.settings.llm.max_retries,
            )
        summary_text = self.session.summary_message_text()
        if self.session.summary and agent.state.summary != summary_text:
            agent.state.summary = summary_text

    @property
    def session_id(self) -> str:
        """Id of the conversation (names its transcript and state file)."""
        return self.agent.state.session_id

    @property
    def transcript(self) -> Transcript:
        """The append-only transcript of the current conversation."""
        return Transcript(self.working_dir.transcript_file(self.session_id))

    def update_params(
        self,
        max_input_length: int | None = None,
        memory_compact_ratio: float | None = None,
        language: str | None = None,
    ) -> None:
        """Change window, ratio or language at runtime (applies from the next step)."""
        self.session.update_params(max_input_length, memory_compact_ratio, language)
        if self.compactor is not None:
            self.compactor.update_params(max_input_length, language)
        if self.agent is not None and self.session.summary:
            self.agent.state.summary = self.session.summary_message_text()

    def usage(self) -> tuple[int, int, float]:
        """`(estimated tokens, max_input_length, percent)` for a status line, O(1)."""
        tokens, window = self.session.context_tokens(), self.session.max_input_length
        return tokens, window, round(100.0 * tokens / max(1, window), 1)

    # ------------------------------------------------------------------ hooks
    async def on_compress_context(
        self, agent: Any, input_kwargs: dict, next_handler: Callable[..., Any]
    ) -> None:
        """Before each reasoning step: adopt new messages, compact past the threshold."""
        self.attach(agent)
        await self.sync()
        await self._measure_overhead()
        session = self.session
        self._notify(
            ContextUsage(
                session.context_tokens(), session.max_input_length, session.threshold_tokens()
            )
        )
        if session.over_threshold():
            await self._auto_compact()

    async def on_acting(
        self, agent: Any, input_kwargs: dict, next_handler: Callable[..., AsyncGenerator]
    ) -> AsyncGenerator:
        """Offload an oversized final tool result before it enters the context."""
        from agentscope.tool import ToolResponse

        self.attach(agent)
        tool_name = input_kwargs["tool_call"].name
        async for item in next_handler(**input_kwargs):
            if isinstance(item, ToolResponse):
                await self._offload_response(tool_name, item)
            yield item

    async def on_model_call(
        self, agent: Any, input_kwargs: dict, next_handler: Callable[..., Any]
    ) -> Any:
        """On "context length exceeded": force a compaction and retry the call once."""
        try:
            return await next_handler(**input_kwargs)
        except Exception as exc:
            if not is_context_overflow(exc):
                raise
            log.warning("context overflow reported by the provider; compacting: %s", exc)
        self.attach(agent)
        await self.sync()
        keep = min(self._keep_budget(), self.session.context_tokens() // 4)
        await self._compact(keep, trigger="overflow")
        from agentscope.message import UserMsg

        messages = list(input_kwargs["messages"])
        head = [m for m in messages[:1] if m.role == "system"]
        if agent.state.summary:
            head.append(UserMsg(name="user", content=agent.state.summary))
        return await next_handler(**{**input_kwargs, "messages": head + list(agent.state.context)})

    async def on_reply(
        self, agent: Any, input_kwargs: dict, next_handler: Callable[..., AsyncGenerator]
    ) -> AsyncGenerator:
        """Pass the reply through; save the state once it completed."""
        self.attach(agent)
        async for item in next_handler(**input_kwargs):
            yield item
        if self.autosave:
            await self.save()

    # ------------------------------------------------------------------ operations
    async def sync(self) -> None:
        """Adopt messages added to `agent.state.context` and append them to the transcript."""
        records = self.session.sync(self.agent.state.context)
        await self._append(records)

    async def save(self) -> Path:
        """Sync, then replace `sessions/<id>.state.json` atomically; returns its path."""
        await self.sync()
        agent_state = self.agent.state.model_dump(mode="json")
        session_state = self.session.state_dict(include_messages=False)
        async with self._io_lock:
            await asyncio.to_thread(
                persistence.write_state,
                self.working_dir,
                self.session_id,
                agent_state,
                session_state,
            )
        return self.working_dir.state_file(self.session_id)

    async def restore(self, ref: str) -> Any:
        """Load conversation `ref` (`last` or an id): returns the `AgentState` to build the
        agent with (`Agent(..., state=...)`); the session is restored to match it.

        Raises `LookupError` with a message that says what to do.
        """
        from agentscope.state import AgentState

        saved = await asyncio.to_thread(persistence.load_saved, self.working_dir, ref)
        if saved.agent_state is not None:
            state = AgentState.model_validate(saved.agent_state)
        else:
            state = AgentState(session_id=saved.session_id)
        state.context = saved.context
        self.session.load_state_dict(
            saved.session_state,
            history=saved.history,
            context=state.context,
            restore_params=False,
        )
        state.summary = self.session.summary_message_text()
        return state

    async def new_conversation(self, *, forget: bool = False) -> str:
        """Start over (`/new`; `/clear` with `forget=True` also deletes this conversation's
        transcript and state file). Returns the new session id."""
        from agentscope.state import AgentState

        if forget:
            await asyncio.to_thread(persistence.delete_saved, self.working_dir, self.session_id)
        else:
            await self.save()
        self.session.clear()
        state = self.agent.state
        state.context = []
        state.summary = ""
        state.session_id = AgentState().session_id
        return state.session_id

    async def compact_now(self, agent: Any = None, focus: str = "") -> CompactionDone:
        """Compact now (for `/compact [focus]`), keeping the recent messages."""
        if agent is not None:
            self.attach(agent)
        await self.sync()
        await self._measure_overhead()
        return await self._compact(self._keep_budget(), trigger="manual", focus=focus)

    # ------------------------------------------------------------------ internals
    def _keep_budget(self) -> int:
        """Recent tokens kept verbatim; at most half the threshold so compaction progresses."""
        return min(self.keep_recent_tokens, self.session.threshold_tokens() // 2)

    async def _auto_compact(self) -> None:
        for msg_id, block in self.session.oversized_tool_results(self.store.threshold):
            await self._offload_block(msg_id, block)
        if self.session.over_threshold():
            await self._compact(self._keep_budget(), trigger="auto")

    async def _compact(self, keep_tokens: int, trigger: str, focus: str = "") -> CompactionDone:
        async with self._compact_lock:
            session = self.session
            before = session.context_tokens()
            keep_last = session.threshold_tokens() // 2 if keep_tokens else 0
            plan = session.plan_compaction(keep_tokens, keep_last_up_to=keep_last)
            if plan.empty:
                return CompactionDone(before, before, 0, trigger)
            self._notify(CompactionStarted(before, session.threshold_tokens(), trigger))
            # cancellation (Esc) propagates from here: nothing applied, no CompactionDone
            result = await self.compactor.compact(plan.messages, session.summary, focus)
            await self.sync()
            fits = session.context_tokens() < session.max_input_length
            if not result.ok and trigger != "overflow" and fits:  # keep; the next step retries
                done = CompactionDone(before, before, 0, trigger, result.stages, result.error)
                self._notify(done)
                return done
            session.apply_compaction(plan, result.summary)
            self.agent.state.context = session.context_messages(rebind=True)
            self.agent.state.summary = session.summary_message_text()
            after = session.context_tokens()
            record = Transcript.checkpoint_record(
                result.summary,
                plan.covered,
                number=session.checkpoints,
                trigger=trigger,
                focus=focus,
                tokens_before=before,
                tokens_after=after,
                error=result.error,
            )
            await self._append([record])
            done = CompactionDone(
                before,
                after,
                len(plan.messages),
                trigger,
                result.stages,
                result.error,
                tuple(result.filled_sections),
            )
        if plan.messages and self.on_compacted is not None:
            await _call(self.on_compacted, plan.messages)
        self._notify(done)
        return done

    async def _offload_response(self, tool_name: str, response: Any) -> None:
        from agentscope.message import TextBlock

        text = "".join(b.text for b in response.content if b.type == "text")
        if not self.store.needs_offload(text):
            return
        kept, path = await asyncio.to_thread(self.store.offload_detail, tool_name, text)
        others = [b for b in response.content if b.type != "text"]
        response.content = [TextBlock(text=kept), *others]
        response.metadata["offloaded_to"] = str(path)
        self._notify(ToolResultOffloaded(tool_name, str(path), len(text)))

    async def _offload_block(self, msg_id: str, block: Any) -> None:
        from remecli.memory.blocks import output_text

        text = output_text(block.output)
        kept, path = await asyncio.to_thread(self.store.offload_detail, block.name, text)
        if path is not None:
            self.session.replace_tool_result(msg_id, block, kept)
            self._notify(ToolResultOffloaded(block.name, str(path), len(text)))

    async def _measure_overhead(self) -> None:
        """Tokens of the system prompt and tool schemas, sent with every call."""
        agent = self.agent
        prompt = await agent._get_system_prompt()
        tools = await agent.toolkit.get_tool_schemas(agent.state.tool_context.activated_groups)
        tools_text = json.dumps(tools, ensure_ascii=False) if tools else ""
        self.session.overhead_tokens = (
            self.counter.count(prompt) + self.counter.count(tools_text) + 4
        )

    async def _append(self, records: list[dict[str, Any]]) -> None:
        if not records:
            return
        transcript = self.transcript
        async with self._io_lock:
            await asyncio.to_thread(transcript.append, records)

    def _notify(self, notice: MemoryNotice) -> None:
        if self.on_notice is None:
            return
        try:
            self.on_notice(notice)
        except Exception:  # noqa: BLE001 - a UI callback must not break the turn
            log.exception("on_notice callback failed")


async def _call(callback: Callable[..., Any], *args: Any) -> None:
    try:
        result = callback(*args)
        if inspect.isawaitable(result):
            await result
    except Exception:  # noqa: BLE001 - the memory writer must not break the turn
        log.exception("on_compacted callback failed")
