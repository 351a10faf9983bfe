"""The in-memory memory of one conversation: messages with marks, the summary, token accounting.

Mirrors `agent.state.context` and remembers, per message *and per block* (one reply holds
many tool calls and results), what compaction folded into the summary. Token counts are cached
per block with a running total: a turn's accounting cost depends on what it added, not on history.
"""

from __future__ import annotations

from typing import Any

from remecli.conversation import prompts
from remecli.conversation.compaction_plan import plan_compaction
from remecli.conversation.entries import CompactionPlan, Entry, ToolResultBlock
from remecli.conversation.report import TokenEstimate, estimate, history_str
from remecli.conversation.transcript import Transcript
from remecli.llm import conversation_state
from remecli.llm.blocks import (
    MSG_OVERHEAD,
    block_key,
    block_tokens,
    output_text,
)
from remecli.llm.conversation_state import ContextMessage
from remecli.llm.tokens import TokenCounter

STATE_VERSION = 1
# A checkpoint with one short line in each of its six sections costs about this many tokens:
# `/compact` folding less would make the context bigger, not smaller.
MIN_FOLD_TOKENS = 100


class Session:
    """Ordered messages with `compressed` marks, the rolling summary and cached token counts."""

    def __init__(
        self,
        counter: TokenCounter,
        *,
        max_input_length: int = 128_000,
        memory_compact_ratio: float = 0.7,
        language: str = "",
    ) -> None:
        self.counter = counter
        self.one_shot = False  # a `-p` answer: listed apart, never picked by resume=last
        self.max_input_length = max_input_length
        self.memory_compact_ratio = memory_compact_ratio
        self.language = language
        self.overhead_tokens = 0
        self.clear()

    # ----------------------------------------------------------------- lifecycle
    def clear(self) -> None:
        """Forget messages, marks and summary."""
        self._entries: dict[str, Entry] = {}
        self._order: list[str] = []
        self._live_tokens = 0
        self._live_messages = 0
        self._ctx_len = 0
        self._ctx_last: ContextMessage | None = None
        self.summary = ""
        self.checkpoints = 0
        self._summary_tokens = 0

    def update_params(
        self,
        max_input_length: int | None = None,
        memory_compact_ratio: float | None = None,
        language: str | None = None,
    ) -> None:
        """Change the window, the compaction ratio or the language at runtime."""
        if max_input_length is not None:
            self.max_input_length = int(max_input_length)
        if memory_compact_ratio is not None:
            if not 0 < memory_compact_ratio < 1:
                raise ValueError("memory_compact_ratio must be between 0 and 1 (exclusive)")
            self.memory_compact_ratio = float(memory_compact_ratio)
        if language is not None:
            self.language = language
            self.set_summary(self.summary)

    def sync(self, context: list[ContextMessage]) -> list[dict[str, Any]]:
        """Adopt what the agent appended to `context` since the last call.

        Returns transcript records for the new messages and blocks. Only the tail is examined
        unless the context was rewritten by someone else (then everything is re-read, and live
        messages that disappeared are marked removed).
        """
        records: list[dict[str, Any]] = []
        fast = self._ctx_len <= len(context) and (
            self._ctx_len == 0 or context[self._ctx_len - 1] is self._ctx_last
        )
        if fast:
            for msg in context[max(0, self._ctx_len - 1) :]:
                self._adopt(msg, records)
        else:
            for msg in context:
                self._adopt(msg, records)
            present = {m.id for m in context}
            gone = [mid for mid in self._order if self._entries[mid].live and mid not in present]
            for mid in gone:
                entry = self._entries[mid]
                self._set_live(entry, {})
                entry.compressed.add("removed")
                entry.ctx = None
            if gone:
                records.append(Transcript.removed_record(gone))
        self._ctx_len = len(context)
        self._ctx_last = context[-1] if context else None
        return records

    def add(self, msgs: ContextMessage | list[ContextMessage]) -> list[dict[str, Any]]:
        """Library use without an agent: append message(s) to the conversation."""
        records: list[dict[str, Any]] = []
        for msg in msgs if isinstance(msgs, list) else [msgs]:
            self._adopt(msg, records)
            self._ctx_len += 1
            self._ctx_last = msg
        return records

    def _adopt(
        self, msg: ContextMessage, records: list[dict[str, Any]], revive: bool = False
    ) -> None:
        entry = self._entries.get(msg.id)
        is_new = entry is None
        if entry is None:
            entry = Entry(msg=msg)
            self._entries[msg.id] = entry
            self._order.append(msg.id)
            records.append(Transcript.message_record(msg))
        if entry.ctx is not msg:
            entry.ctx, entry.ctx_seen = msg, 0
        added: list[Any] = []
        live = entry.live
        before = entry.tokens
        for block in msg.content[entry.ctx_seen :]:
            key = block_key(block)
            if key in live:
                continue
            if key in entry.compressed:
                if not revive:
                    continue
                entry.compressed.discard(key)
            else:
                added.append(block)
                if entry.msg is not msg:
                    entry.msg.content.append(block)
            live[key] = block_tokens(self.counter, block)
        entry.ctx_seen = len(msg.content)
        self._account(entry, before)
        if added and not is_new:
            records.append(Transcript.blocks_record(msg.id, added))

    def _account(self, entry: Entry, before: int) -> None:
        after = entry.tokens
        self._live_tokens += after - before
        self._live_messages += (after > 0) - (before > 0)

    def _set_live(self, entry: Entry, live: dict[str, int]) -> None:
        before = entry.tokens
        entry.live = live
        self._account(entry, before)

    def set_summary(self, summary: str) -> None:
        """Replace the rolling summary (the checkpoint text)."""
        self.summary = summary or ""
        self._summary_tokens = (
            self.counter.count(self.summary_message_text()) + MSG_OVERHEAD if self.summary else 0
        )

    def summary_message_text(self) -> str:
        """The summary as the model receives it (`agent.state.summary`), or ""."""
        if not self.summary:
            return ""
        return prompts.render_summary_message(self.summary, self.checkpoints, self.language)

    def context_tokens(self) -> int:
        """Estimated input tokens of the next model call (O(1))."""
        return self.overhead_tokens + self._summary_tokens + self._live_tokens

    def threshold_tokens(self) -> int:
        """Context size at which auto-compaction fires."""
        return int(self.max_input_length * self.memory_compact_ratio)

    def keep_recent_budget(self, configured: int) -> int:
        """Recent tokens a compaction keeps verbatim: `configured` (keep_recent_tokens), scaled
        down to small windows: at most half of what the threshold leaves for messages after
        the system prompt, the tools and the summary, so a compaction ends well under the
        threshold instead of over it again at the next step."""
        room = self.threshold_tokens() - self.overhead_tokens - self._summary_tokens
        return max(0, min(configured, room // 2))

    def worth_folding(self, plan: CompactionPlan) -> bool:
        """True when `plan` folds more than a checkpoint costs (`MIN_FOLD_TOKENS`): folding
        less can only grow the context, so no model call is made for it (`/compact` on a short
        chat)."""
        return not plan.empty and plan.tokens > MIN_FOLD_TOKENS

    def over_threshold(self) -> bool:
        """True when the context passes `max_input_length × memory_compact_ratio`."""
        return self.context_tokens() > self.threshold_tokens()

    @property
    def live_message_count(self) -> int:
        """Messages with at least one block the model still sees."""
        return self._live_messages

    @property
    def compressed_message_count(self) -> int:
        """Messages folded into the summary entirely."""
        return sum(1 for e in self._entries.values() if not e.live)

    @property
    def summary_tokens(self) -> int:
        """Tokens of the summary message."""
        return self._summary_tokens

    @property
    def live_tokens(self) -> int:
        """Tokens of the live messages."""
        return self._live_tokens

    def live_entries(self) -> list[tuple[str, Entry]]:
        """Messages the model still sees, in order, with their accounting."""
        return [(mid, self._entries[mid]) for mid in self._order if self._entries[mid].live]

    def context_messages(self, rebind: bool = False) -> list[ContextMessage]:
        """The non-compressed messages (partly compressed ones as copies with the same id).

        With `rebind=True` the result becomes the new mirror of `agent.state.context`.
        """
        out: list[ContextMessage] = []
        for _mid, entry in self.live_entries():
            source = entry.ctx if entry.ctx is not None else entry.msg
            blocks = source.content
            if len(blocks) == len(entry.live) and all(block_key(b) in entry.live for b in blocks):
                msg = source
            else:
                keep = [b for b in blocks if block_key(b) in entry.live]
                msg = conversation_state.with_blocks(source, keep)
            if rebind:
                entry.ctx, entry.ctx_seen = msg, len(msg.content)
            out.append(msg)
        if rebind:
            self._ctx_len, self._ctx_last = len(out), (out[-1] if out else None)
        return out

    def get_memory(self) -> list[ContextMessage]:
        """The messages to send: the summary (as a user message) then the non-compressed ones."""
        summary = self.summary_message_text()
        head = [conversation_state.text_message("user", summary)] if self.summary else []
        return head + self.context_messages()

    def all_messages(self) -> list[ContextMessage]:
        """Every message of the conversation in order, compressed ones included (full form)."""
        return [self._entries[mid].msg for mid in self._order]

    def is_compressed(self, msg_id: str, key: str | None = None) -> bool:
        """True if the message (or one of its blocks) was folded into the summary."""
        entry = self._entries[msg_id]
        return key in entry.compressed if key else not entry.live

    def estimate_tokens(self) -> TokenEstimate:
        """Token statistics of what the model receives, with per-message detail."""
        return estimate(self)

    def get_history_str(self, max_block_chars: int = 600) -> str:
        """A readable dump of the non-compressed messages with token statistics (`/history`)."""
        return history_str(self, max_block_chars)

    # ----------------------------------------------------------------- compaction
    def plan_compaction(self, keep_recent_tokens: int, keep_last_up_to: int = 0) -> CompactionPlan:
        """Keep the newest atoms within `keep_recent_tokens`; the rest is to be compacted
        (`compaction_plan.plan_compaction`: a tool call never leaves its result)."""
        return plan_compaction(self.live_entries(), keep_recent_tokens, keep_last_up_to)

    def apply_compaction(self, plan: CompactionPlan, summary: str) -> None:
        """Mark the planned blocks compressed and install the new summary."""
        for mid, keys in plan.covered.items():
            entry = self._entries[mid]
            live = dict(entry.live)
            for key in keys:
                live.pop(key, None)
                entry.compressed.add(key)
            self._set_live(entry, live)
        self.checkpoints += 1
        self.set_summary(summary)

    # ----------------------------------------------------------------- tool results
    def oversized_tool_results(self, threshold: int) -> list[tuple[str, ToolResultBlock]]:
        """Live tool-result blocks whose text is longer than `threshold` characters."""
        found = []
        for mid, entry in self.live_entries():
            source = entry.ctx if entry.ctx is not None else entry.msg
            for block in source.content:
                if (
                    block.type == "tool_result"
                    and block_key(block) in entry.live
                    and len(output_text(block.output)) > threshold
                ):
                    found.append((mid, block))
        return found

    def replace_tool_result(self, msg_id: str, block: ToolResultBlock, text: str) -> None:
        """Swap a tool result's text for its offloaded form and update the token count."""
        if isinstance(block.output, str):
            block.output = text
        else:
            others = [b for b in block.output if getattr(b, "type", "") != "text"]
            block.output = [conversation_state.text_block(text), *others]
        entry = self._entries[msg_id]
        live = dict(entry.live)
        live[block_key(block)] = block_tokens(self.counter, block)
        self._set_live(entry, live)

    # ----------------------------------------------------------------- state
    def state_dict(self, include_messages: bool = True) -> dict[str, Any]:
        """Serializable state; without messages the transcript must supply them on load."""
        state: dict[str, Any] = {
            "version": STATE_VERSION,
            "summary": self.summary,
            "checkpoints": self.checkpoints,
            "params": {
                "max_input_length": self.max_input_length,
                "memory_compact_ratio": self.memory_compact_ratio,
                "language": self.language,
            },
        }
        if self.one_shot:
            state["one_shot"] = True
        if include_messages:
            state["messages"] = [
                {"msg": conversation_state.message_to_json(e.msg), "live": sorted(e.live)}
                for e in (self._entries[mid] for mid in self._order)
            ]
        return state

    def load_state_dict(
        self,
        state: dict[str, Any],
        *,
        history: list[ContextMessage] | None = None,
        context: list[ContextMessage] | None = None,
        restore_params: bool = True,
    ) -> None:
        """Restore from `state_dict()`.

        Messages come from `state["messages"]` or else `history` (the transcript). With
        `context` (the saved agent context) the live blocks are exactly those in it. With
        `restore_params=False` the current window, ratio and language are kept.
        """
        self.clear()
        if restore_params:
            self.update_params(**state.get("params", {}))
        self.checkpoints = int(state.get("checkpoints", 0))
        if "messages" in state:
            pairs = [
                (conversation_state.message_from_json(r["msg"]), set(r.get("live", [])))
                for r in state["messages"]
            ]
        else:
            pairs = [(m, set()) for m in history or []]
        for msg, live_keys in pairs:
            entry = Entry(msg=msg)
            entry.compressed = {block_key(b) for b in msg.content}
            self._entries[msg.id] = entry
            self._order.append(msg.id)
            if live_keys and context is None:
                entry.compressed -= live_keys
                self._set_live(
                    entry,
                    {
                        block_key(b): block_tokens(self.counter, b)
                        for b in msg.content
                        if block_key(b) in live_keys
                    },
                )
        if context is not None:
            for msg in context:
                self._adopt(msg, [], revive=True)
            self._ctx_len, self._ctx_last = len(context), (context[-1] if context else None)
        else:
            self.context_messages(rebind=True)
        self.set_summary(state.get("summary", ""))
