"""Compaction: fold messages into a structured checkpoint, merged into the previous one.

The checkpoint has six sections (Goal, Constraints & Preferences, Progress with Done / In
Progress / Blocked, Key Decisions, Next Steps, Critical Context). The request always fits the
window: a part too large for one request is compacted in stages, each stage updating the
checkpoint of the previous one. A checkpoint missing sections is asked for again once, then
accepted with the missing sections taken from the previous checkpoint. Each request is retried
with exponential backoff on 429/5xx/timeouts (`remecli.llm.retry.call_with_backoff`).
Compaction never raises except on cancellation: a cancelled request raises
`asyncio.CancelledError` (`ChatModel.stream_text`), so Esc stops a compaction at once. If the
model keeps failing, the result has `ok=False` and a deterministic fallback checkpoint (the
previous one plus a note); the caller decides whether to use it.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from remecli.config.settings import LLMSettings
from remecli.conversation import prompts
from remecli.conversation.prompts.examples import without_examples
from remecli.llm.blocks import block_text, clip
from remecli.llm.chat_model import ChatMessage, ChatModel, assistant, system, user
from remecli.llm.conversation_state import ContextMessage
from remecli.llm.tokens import TokenCounter

log = logging.getLogger(__name__)

_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n(.*?)\n```\s*$", re.DOTALL)
_SAFETY_TOKENS = 64
_DEFAULT_RETRIES: int = LLMSettings.model_fields["max_retries"].default


@dataclass
class CompactionResult:
    """The new checkpoint and how it was obtained (`str()` gives the checkpoint)."""

    summary: str
    ok: bool = True
    error: str | None = None
    stages: int = 0
    retries: int = 0
    filled_sections: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return self.summary


class Compactor:
    """Turns messages into a checkpoint with the chat `model`."""

    def __init__(
        self,
        model: ChatModel,
        counter: TokenCounter,
        language: str = "",
        max_input_length: int = 128_000,
        *,
        output_reserve: int | None = None,
        block_char_limit: int = 6_000,
        max_retries: int = _DEFAULT_RETRIES,
        retry_base_delay: float = 0.5,
    ) -> None:
        self.model = model
        self.counter = counter
        self.language = language
        self.max_input_length = max_input_length
        self.output_reserve = output_reserve
        self.block_char_limit = block_char_limit
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay

    def update_params(
        self, max_input_length: int | None = None, language: str | None = None
    ) -> None:
        """Follow runtime changes of the window or language."""
        if max_input_length is not None:
            self.max_input_length = int(max_input_length)
        if language is not None:
            self.language = language

    # ------------------------------------------------------------------ public
    async def compact(
        self, messages: list[ContextMessage], previous_summary: str = "", focus: str = ""
    ) -> CompactionResult:
        """A checkpoint covering `previous_summary` plus `messages`, steered by `focus`."""
        previous = previous_summary or ""
        if not messages:
            return CompactionResult(summary=previous)
        stages = self._stages(messages, previous, focus)
        summary, result = previous, CompactionResult(summary=previous, stages=len(stages))
        try:
            for number, text in enumerate(stages, start=1):
                summary = await self._stage(text, summary, focus, number, len(stages), result)
        except Exception as exc:  # noqa: BLE001 - compaction must never fail the turn
            log.warning("compaction failed: %s", exc, exc_info=True)
            result.ok = False
            result.error = f"{type(exc).__name__}: {exc}"
            summary = self.fallback(summary, messages, result.error)
        result.summary = summary
        return result

    def fallback(self, previous: str, messages: list[Any], error: str) -> str:
        """Deterministic checkpoint when the model fails: the previous one plus a note."""
        bodies = prompts.split_sections(previous)
        note = prompts.prompt(
            "fallback_note", self.language, error=clip(error, 200), count=len(messages)
        ).strip()
        last_user = next(
            (m.get_text_content() for m in reversed(messages) if m.role == "user"), None
        )
        if last_user:
            note += "\n- " + clip(" ".join(last_user.split()), 400)
        bodies[5] = f"{bodies.get(5, '').strip()}\n{note}".strip()
        return prompts.assemble(bodies, self.language)

    # ------------------------------------------------------------------ stages
    def _budget(self, previous: str, focus: str) -> int:
        """Tokens available for conversation text in one request."""
        reserve = self.output_reserve or min(8_192, self.max_input_length // 4)
        request = self.max_input_length - reserve
        fixed = self.counter.count(self._system()) + self.counter.count(
            self._user("", previous, focus, 1, 1)
        )
        return int(max(request - fixed - _SAFETY_TOKENS, request // 4, 64))

    def _stages(self, messages: list[ContextMessage], previous: str, focus: str) -> list[str]:
        """Conversation text cut into pieces that each fit one request."""
        budget = self._budget(previous, focus)
        stages: list[str] = []
        current: list[str] = []
        used = 0
        for piece in self._pieces(messages):
            tokens = self.counter.count(piece) + 1
            if tokens > budget:
                piece = clip(piece, max(200, int(len(piece) * budget / tokens * 0.9)))
                tokens = self.counter.count(piece) + 1
            if current and used + tokens > budget:
                stages.append("\n".join(current))
                current, used = [], 0
            current.append(piece)
            used += tokens
        if current:
            stages.append("\n".join(current))
        return stages

    def _pieces(self, messages: list[ContextMessage]) -> list[str]:
        pieces = []
        for msg in messages:
            for block in msg.content:
                if block.type == "thinking":
                    continue
                pieces.append(f"[{msg.role}] {block_text(block, self.block_char_limit)}")
        return pieces

    async def _stage(
        self,
        conversation: str,
        previous: str,
        focus: str,
        number: int,
        total: int,
        result: CompactionResult,
    ) -> str:
        request = [
            system(self._system()),
            user(self._user(conversation, previous, focus, number, total)),
        ]
        text = without_examples(_clean(await self._ask(request)), self.language)
        missing = prompts.missing_sections(text)
        if not missing:
            return text
        result.retries += 1
        headings = prompts.sections(self.language)
        retry = prompts.prompt(
            "compact_retry",
            self.language,
            missing=", ".join(headings[i] for i in missing),
            sections=", ".join(headings),
        )
        request += [assistant(text or "(empty)"), user(retry)]
        second = without_examples(_clean(await self._ask(request)), self.language)
        still_missing = prompts.missing_sections(second)
        if not still_missing:
            return second
        best, gaps = (
            (second, still_missing) if len(still_missing) <= len(missing) else (text, missing)
        )
        bodies = prompts.split_sections(best)
        old = prompts.split_sections(previous)
        for index in gaps:
            bodies[index] = old.get(index, "")
            result.filled_sections.append(headings[index])
        return prompts.assemble(bodies, self.language)

    async def _ask(self, request: list[ChatMessage]) -> str:
        """One model request (retried with backoff on transient errors); the answer's text."""
        from remecli.llm.retry import call_with_backoff

        return await call_with_backoff(
            lambda: self._ask_once(request),
            self.max_retries,
            base_delay=self.retry_base_delay,
            what="compaction request",
        )

    async def _ask_once(self, request: list[ChatMessage]) -> str:
        """One model call; the text of the complete answer (`CancelledError` if interrupted)."""
        from remecli.llm.model_text import answer_text

        return await answer_text(self.model, request)

    # ------------------------------------------------------------------ prompts
    def _system(self) -> str:
        return prompts.prompt("compact_system", self.language)

    def _user(self, conversation: str, previous: str, focus: str, number: int, total: int) -> str:
        focus_block = prompts.prompt("compact_focus", self.language, focus=focus) if focus else ""
        return prompts.prompt(
            "compact_user",
            self.language,
            now=dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
            previous_summary=previous.strip() or "(none)",
            conversation=conversation,
            focus_block=focus_block,
            stage=number,
            stages=total,
        )


def _clean(text: str) -> str:
    """Strip a code fence and anything before the first `## ` heading."""
    text = (text or "").strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    start = text.find("## ")
    if start > 0 and text[start - 1] == "\n":
        text = text[start:]
    return text.strip() + "\n" if text else ""
