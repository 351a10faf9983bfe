"""The conversation in memory: token accounting, compaction, offload, transcript, save and resume.

One per memory runtime (`FileMemory.conversation`), on the state (`ConversationState`) of
whatever it is bound to. `sync` adopts messages the agent added and appends them to the transcript;
`auto_compact` (past `max_input_length × memory_compact_ratio`) offloads long tool results
  (earlier turns' largest first), then compacts older messages into a checkpoint, keeping the
  newest `keep_recent_tokens` (a tool call never loses its result); a failure drops nothing.
- `compact_for_overflow` runs on "context length exceeded"; `save` / `restore` /
  `new_conversation` persist and reload `sessions/<id>.*`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from remecli.config.settings import Settings
from remecli.conversation import persistence
from remecli.conversation.compactor import Compactor
from remecli.conversation.disk_wait import WaitingWrites
from remecli.conversation.entries import ToolResultBlock
from remecli.conversation.notices import (
    CompactionDone,
    CompactionStarted,
    ContextUsage,
    MemoryNotice,
    ToolResultOffloaded,
)
from remecli.conversation.session import Session
from remecli.conversation.session_lock import SessionInUse, SessionLock, is_live
from remecli.conversation.started_with import recorded_settings
from remecli.conversation.tool_results import ToolResultStore, offload_order
from remecli.conversation.transcript import Transcript
from remecli.llm import conversation_state
from remecli.llm.blocks import block_key, output_text
from remecli.llm.chat_model import ChatModel
from remecli.llm.conversation_state import ContextMessage, ConversationState
from remecli.llm.tokens import TokenCounter
from remecli.notes.layout import WorkingDir

log = logging.getLogger(__name__)

CompactedFn = Callable[[list[ContextMessage]], object]  # may return an awaitable
NoticeFn = Callable[[MemoryNotice], object]


class HasState(Protocol):
    """What a conversation is bound to: anything holding the agent's state (the agent; its
    runtime's state object, seen through `conversation_state.live_state`)."""

    @property
    def state(self) -> object:
        """The agent's state."""
        ...


class Conversation:
    """The memory side of one conversation: session, tool-result store, compactor, transcript."""

    def __init__(
        self,
        settings: Settings,
        layout: WorkingDir,
        counter: TokenCounter,
        model_of: Callable[[], ChatModel],
        *,
        display_root: Path | None = None,
    ) -> None:
        self.settings = settings
        self.layout = layout
        self.counter = counter
        self.session = Session(
            counter,
            max_input_length=settings.max_input_length,
            memory_compact_ratio=settings.memory_compact_ratio,
            language=settings.language,
        )
        # a `-p` answer is marked so in its state file (one that resumes a conversation is not)
        self.session.one_shot = settings.prompt is not None and not settings.resume
        self.store = ToolResultStore(
            layout.tool_result_dir,
            settings.memory.tool_result_threshold,
            settings.memory.retention_days,
            display_root=display_root or layout.root,
        )
        self.keep_recent_tokens = settings.memory.keep_recent_tokens
        self.compactor: Compactor | None = None
        self.on_compacted: CompactedFn | None = None
        self.on_notice: NoticeFn | None = None
        self.on_space_back: Callable[[], object] | None = None  # what waited is written: go on
        self.holder: HasState | None = None
        self.restore_problem = ""  # what was wrong with the state file the last restore read
        self.resumed: persistence.ResumedAt | None = None  # on disk at the resume (/clear)
        self.lock = SessionLock(layout)  # tells other processes this one is live
        self._model_of = model_of
        self._compact_lock = asyncio.Lock()
        self._io_lock = asyncio.Lock()
        self.waiting = WaitingWrites()  # transcript records waiting out a full disk
        self.waiting.one_shot = self.session.one_shot

    # ------------------------------------------------------------------ binding
    def bind(self, holder: HasState) -> None:
        """Work on `holder.state` (the agent's); the session's summary is carried over."""
        if self.holder is holder:
            return
        state = conversation_state.live_state(holder.state)
        self.lock.hold(state.session_id)
        self.holder = holder
        summary_text = self.session.summary_message_text()
        if self.session.summary and state.summary != summary_text:
            state.summary = summary_text

    @property
    def state(self) -> ConversationState:
        """The bound agent state (raises if nothing is bound yet)."""
        if self.holder is None:
            raise RuntimeError("the conversation is not bound to an agent yet")
        return conversation_state.live_state(self.holder.state)

    @property
    def bound(self) -> bool:
        """True once an agent's state is bound."""
        return self.holder is not None

    def get_compactor(self) -> Compactor:
        """The one compactor (built on first use with the memory runtime's model)."""
        if self.compactor is None:
            self.compactor = Compactor(
                self._model_of(),
                self.counter,
                self.session.language,
                self.session.max_input_length,
                max_retries=self.settings.llm.max_retries,
            )
        return self.compactor

    @property
    def session_id(self) -> str:
        """Id of the conversation (names its transcript and state file)."""
        return self.state.session_id

    @property
    def transcript(self) -> Transcript:
        """The append-only transcript of the current conversation."""
        return Transcript(self.layout.transcript_file(self.session_id), self.settings.project)

    def update_params(
        self,
        max_input_length: int | None = None,
        memory_compact_ratio: float | None = None,
        language: str | None = None,
    ) -> None:
        """Follow a change of window, ratio or language (applies from the next step)."""
        self.session.update_params(max_input_length, memory_compact_ratio, language)
        if self.compactor is not None:
            self.compactor.update_params(max_input_length, language)
        if self.holder is not None and self.session.summary:
            self.state.summary = self.session.summary_message_text()

    def usage(self) -> tuple[int, int, float]:
        """`(estimated tokens, max_input_length, percent)` for a status line, O(1)."""
        tokens, window = self.session.context_tokens(), self.session.max_input_length
        return tokens, window, round(100.0 * tokens / max(1, window), 1)

    def keep_budget(self) -> int:
        """Recent tokens kept verbatim, scaled to the window (`Session.keep_recent_budget`)."""
        return self.session.keep_recent_budget(self.keep_recent_tokens)

    # ------------------------------------------------------------------ each step
    async def sync(self) -> None:
        """Adopt messages added to the agent's context and append them to the transcript."""
        records = self.session.sync(self.state.context)
        await self._append(records)

    def report_usage(self) -> None:
        """Tell the front-end how full the context is."""
        session = self.session
        self.notify(
            ContextUsage(
                session.context_tokens(), session.max_input_length, session.threshold_tokens()
            )
        )

    async def auto_compact(self) -> None:
        """Past the threshold: offload long tool results, then compact if still over."""
        if not self.session.over_threshold():
            return
        if await self.offload_under_pressure():
            self.report_usage()  # the meter shows what the offload freed
        if self.session.over_threshold():
            await self.compact(self.keep_budget(), trigger="auto")

    async def offload_under_pressure(self) -> int:
        """Offload tool results longer than `tool_result_threshold`, in `offload_order`, until
        the context is back under the compaction threshold; returns how many were offloaded."""
        session = self.session
        candidates = session.oversized_tool_results(self.store.threshold)
        count = 0
        for msg_id, block in offload_order(candidates, session.live_entries(), self.store):
            if not session.over_threshold():
                break
            if await self._offload_block(msg_id, block):
                count += 1
        return count

    async def compact_now(self, focus: str = "", *, short: bool = False) -> CompactionDone:
        """Compact now, keeping the recent messages. With `short` (the user's `/compact`), a
        conversation that fits the keep-recent budget is compacted all but its last exchange."""
        await self.sync()
        keep = self.keep_budget()
        half = self.session.threshold_tokens() // 2
        if short and self.session.plan_compaction(keep, half if keep else 0).empty:
            keep = self.last_exchange_tokens()
        plan = self.session.plan_compaction(keep, half if keep else 0)  # as compact() plans
        if short and not self.session.worth_folding(plan):
            before = self.session.context_tokens()  # a short chat: nothing worth a checkpoint
            return CompactionDone(before, before, 0, "manual")
        return await self.compact(keep, trigger="manual", focus=focus)

    def last_exchange_tokens(self) -> int:
        """Tokens from the last user message to the end (what the user just asked and got)."""
        total = 0
        for _mid, entry in reversed(self.session.live_entries()):
            total += entry.tokens
            if (entry.ctx if entry.ctx is not None else entry.msg).role == "user":
                break
        return total

    async def compact_for_overflow(self) -> None:
        """The provider said the context is too long: compact hard, keeping a quarter at most."""
        await self.sync()
        keep = min(self.keep_budget(), self.session.context_tokens() // 4)
        await self.compact(keep, trigger="overflow")

    # ------------------------------------------------------------------ persistence
    async def save(self) -> Path:
        """Sync, then replace `sessions/<id>.state.json` atomically; returns its path."""
        await self.sync()
        agent_state = conversation_state.state_to_json(self.state)
        session_state = self.session.state_dict(include_messages=False)
        settings = recorded_settings(self.settings)  # a resume answers with the same model
        args = (self.layout, self.session_id, agent_state, session_state, settings)
        async with self._io_lock:  # a full disk: waits with the transcript's records
            await asyncio.to_thread(self.waiting.write_state, persistence.write_state, *args)
        return self.layout.state_file(self.session_id)

    async def restore(self, ref: str) -> ConversationState:
        """Load conversation `ref` (`last` or an id): the state to build the agent with; the
        session is restored to match it. Raises `LookupError` saying what to do."""
        saved = await asyncio.to_thread(persistence.load_saved, self.layout, ref)
        if saved.session_id != self.lock.session_id and is_live(self.layout, saved.session_id):
            raise SessionInUse(
                f"Conversation {saved.session_id} is open in another remecli on this working "
                "dir; close it there first, or start a new conversation without resume=…"
            )
        self.restore_problem = saved.problem
        self.resumed = saved.resumed
        if saved.agent_state is not None:
            state = conversation_state.state_from_json(saved.agent_state)
        else:
            state = conversation_state.new_state(saved.session_id)
        state.context = saved.context
        self.session.load_state_dict(
            saved.session_state, history=saved.history, context=state.context, restore_params=False
        )
        state.summary = self.session.summary_message_text()
        await self.resave_missing_offloads()
        return state

    async def new_conversation(self, *, forget: bool = False) -> str:
        """Start over (`/new`; `/clear` with `forget=True` also deletes this conversation's
        transcript and state file, or for a resumed one what this run added to them)."""
        if forget:
            await asyncio.to_thread(persistence.forget, self.layout, self.session_id, self.resumed)
        else:
            await self.save()
        self.resumed = None
        self.session.clear()
        state = self.state
        state.context = []
        state.summary = ""
        state.session_id = conversation_state.new_session_id()
        self.lock.hold(state.session_id)
        return state.session_id

    # ------------------------------------------------------------------ compaction
    async def compact(self, keep_tokens: int, trigger: str, focus: str = "") -> CompactionDone:
        """Fold the older messages into a checkpoint, keeping `keep_tokens` of recent ones."""
        async with self._compact_lock:
            session = self.session
            before = session.context_tokens()
            keep_last = session.threshold_tokens() // 2 if keep_tokens else 0
            plan = session.plan_compaction(keep_tokens, keep_last_up_to=keep_last)
            if plan.empty:
                return CompactionDone(before, before, 0, trigger)
            self.notify(CompactionStarted(before, session.threshold_tokens(), trigger))
            # cancellation (Esc) propagates from here: nothing applied, no CompactionDone
            result = await self.get_compactor().compact(plan.messages, session.summary, focus)
            await self.sync()
            fits = session.context_tokens() < session.max_input_length
            if not result.ok and trigger != "overflow" and fits:  # keep; the next step retries
                done = CompactionDone(before, before, 0, trigger, result.stages, result.error)
                self.notify(done)
                return done
            session.apply_compaction(plan, result.summary)
            self.state.context = session.context_messages(rebind=True)
            self.state.summary = session.summary_message_text()
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
        self.notify(done)
        return done

    async def resave_missing_offloads(self) -> int:
        """After a resume: an offloaded result whose file is gone (past `retention_days`) is
        offloaded again from the transcript's full text, so what it left out stays readable.
        Returns how many were saved again."""
        count = 0
        for msg_id, entry in self.session.live_entries():
            if entry.ctx is None or entry.ctx is entry.msg:
                continue
            full = {block_key(b): b for b in entry.msg.content if b.type == "tool_result"}
            for block in entry.ctx.content:
                if block.type != "tool_result":
                    continue
                saved = self.store.saved_file(output_text(block.output))
                original = full.get(block_key(block))
                if saved is None or saved.exists() or original is None:
                    continue
                text = output_text(original.output)
                if self.store.saved_file(text) is None and await self._offload_block(
                    msg_id, block, text
                ):
                    count += 1
        return count

    async def _offload_block(
        self, msg_id: str, block: ToolResultBlock, text: str | None = None
    ) -> bool:
        text = output_text(block.output) if text is None else text
        kept, path = await asyncio.to_thread(self.store.offload_detail, block.name, text)
        if path is None:
            return False
        self.session.replace_tool_result(msg_id, block, kept)
        self.notify(ToolResultOffloaded(block.name, str(path), len(text)))
        return True

    async def _append(self, records: list[dict[str, Any]]) -> None:
        if not records and not self.waiting.records:
            return
        transcript = self.transcript
        async with self._io_lock:
            notice = await asyncio.to_thread(self.waiting.append, transcript, records)
        if notice is not None:
            self.notify(notice)
            if not self.waiting.records and self.on_space_back is not None:
                self.on_space_back()  # the summaries that waited for space start now

    def notify(self, notice: MemoryNotice) -> None:
        """Pass `notice` to the front-end's callback (a failing callback never breaks a turn)."""
        if self.on_notice is None:
            return
        try:
            self.on_notice(notice)
        except Exception:  # noqa: BLE001 - a UI callback must not break the turn
            log.exception("on_notice callback failed")


async def _call(callback: CompactedFn, messages: list[ContextMessage]) -> None:
    try:
        result = callback(messages)
        if inspect.isawaitable(result):
            await result
    except Exception:  # noqa: BLE001 - the memory writer must not break the turn
        log.exception("on_compacted callback failed")
