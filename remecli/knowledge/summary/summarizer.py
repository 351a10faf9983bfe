"""The summarizer: a small ReAct agent that saves a conversation into memory files.

It sees the conversation as a readable transcript (roles, local times, shortened tool calls,
clipped tool outputs) and has three file tools confined to the memory files
(`remecli.knowledge.summary.tools`). Two layouts:

- with a `session_id` (the card layout): it writes or updates the conversation's topic card
  `memory/YYYY-MM-DD/<topic-slug>.md` (`remecli.knowledge.summary.scope`), then the code regenerates
  the index block of the day page `memory/YYYY-MM-DD.md`;
- without one (the older layout): it merges `- HH:MM text` entries into `memory/YYYY-MM-DD.md`.

Either way it may answer `[nothing to store]` and touch nothing. A conversation too large for
one request is summarized in chunks, one agent run each. `summarize` never raises (except on
cancellation): failures come back as `status="failed"`.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from remecli.config.prompt_files import load_prompt, render
from remecli.config.settings import Settings
from remecli.knowledge.memory_md.remember import (
    record_requests,
    remember_requests,
    wrote_memory_md,
)
from remecli.knowledge.summary.answer import save_answered_card, save_answered_update
from remecli.knowledge.summary.coverage import add_missing_turns
from remecli.knowledge.summary.prompts import FOLDER, NOTHING_MARKER, USER_PART_MARKER, card_prompts
from remecli.llm.blocks import block_text, clip
from remecli.notes.layout import WorkingDir
from remecli.notes.redact import redact_secrets
from remecli.notes.writer import MemoryWriter

if TYPE_CHECKING:
    from remecli.knowledge.summary.tools import MemoryFileTools
    from remecli.llm.chat_model import ChatModel
    from remecli.llm.conversation_state import ContextMessage
    from remecli.llm.tokens import TokenCounter

log = logging.getLogger(__name__)

DEFAULT_MAX_ITERS = 10
CHUNK_SHARE = 0.4  # share of the window one transcript chunk may take
MIN_CHUNK_TOKENS = 1_000
TEXT_LIMIT = 4_000  # characters kept of one text block
TOOL_CALL_LIMIT = 300  # characters kept of one tool call
TOOL_RESULT_LIMIT = 600  # characters kept of one tool result


@dataclass
class SummaryResult:
    """Outcome of one summary: `status` is "written", "nothing" or "failed"."""

    status: str
    path: Path | None = None
    detail: str = ""
    written: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True unless the summary failed (then its messages must be kept for a retry)."""
        return self.status != "failed"


# ---------------------------------------------------------------- transcript
def _local_time(stamp: str | None) -> dt.datetime | None:
    if not stamp:
        return None
    try:
        moment = dt.datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone().replace(tzinfo=None)
    return moment


def message_lines(
    msg: ContextMessage, last_day: dt.date | None = None
) -> tuple[list[str], dt.date | None]:
    """One message as transcript lines (a `### date` line when the day changes), and its day."""
    moment = _local_time(getattr(msg, "created_at", None))
    lines: list[str] = []
    if moment is not None and moment.date() != last_day:
        lines.append(f"### {moment:%Y-%m-%d}")
        last_day = moment.date()
    stamp = f"[{moment:%H:%M}] " if moment is not None else ""
    role = getattr(msg, "role", "?")
    content = msg.content if not isinstance(msg.content, str) else None
    if content is None:
        texts = [clip(msg.content, TEXT_LIMIT)]
        extras: list[str] = []
    else:
        texts = [clip(b.text, TEXT_LIMIT) for b in content if b.type == "text" and b.text.strip()]
        extras = []
        for block in content:
            if block.type == "tool_call":
                extras.append("    " + block_text(block, TOOL_CALL_LIMIT))
            elif block.type == "tool_result":
                extras.append("    " + block_text(block, TOOL_RESULT_LIMIT).replace("\n", " ⏎ "))
            elif block.type == "data":
                extras.append("    " + block_text(block))
    if not texts and not extras:
        return lines, last_day
    lines.append(f"{stamp}{role}: " + ("\n".join(texts) if texts else "(tool use)"))
    lines.extend(extras)
    return lines, last_day


def chunk_transcripts(
    messages: list[ContextMessage], counter: TokenCounter, budget: int
) -> list[str]:
    """Transcripts of consecutive message groups, each about `budget` tokens at most."""
    chunks: list[str] = []
    current: list[str] = []
    used = 0
    day: dt.date | None = None
    for msg in messages:
        lines, day = message_lines(msg, day)
        if not lines:
            continue
        text = "\n".join(lines)
        tokens = counter.count(text)
        if tokens > budget:  # one huge message: keep its head and tail
            text = clip(text, budget * 3)
            tokens = counter.count(text)
        if current and used + tokens > budget:
            chunks.append("\n".join(current))
            current, used = [], 0
            if day is not None and not text.startswith("### "):
                text = f"### {day:%Y-%m-%d}\n{text}"
        current.append(text)
        used += tokens
    if current:
        chunks.append("\n".join(current))
    return chunks


# ---------------------------------------------------------------- summarizer
class Summarizer:
    """Merges conversations into `memory/YYYY-MM-DD.md` with a confined ReAct agent."""

    def __init__(
        self,
        settings: Settings,
        working_dir: WorkingDir,
        model: ChatModel | None = None,
        *,
        max_iters: int = DEFAULT_MAX_ITERS,
        writer: MemoryWriter | None = None,
    ) -> None:
        self.settings = settings
        self.working_dir = working_dir
        # the composition root's writer; None (library use, tests): one for this working dir
        self.writer = writer or MemoryWriter.from_settings(working_dir.root, settings.memory)
        self.max_iters = max_iters
        self._model = model

    def model_problem(self) -> str | None:
        """Why `model` cannot be built (no configured endpoint), None when it can (or was
        given): the question `remecli.knowledge.model_gate.ModelGate` asks."""
        if self._model is not None:
            return None
        from remecli.llm.endpoint import missing_key_message

        return missing_key_message(self.settings.llm)

    @property
    def model(self) -> ChatModel:
        """The chat model (built from settings on first use, non-streaming; raises
        `ModelNotConfigured` without a configured endpoint)."""
        if self._model is None:
            from remecli.llm.model import build_chat_model

            self._model = build_chat_model(
                self.settings.llm, context_size=self.settings.max_input_length, stream=False
            )
        return self._model

    def update_params(
        self, max_input_length: int | None = None, language: str | None = None
    ) -> None:
        """Follow runtime changes of the window or language."""
        self.settings = self.settings.with_runtime_params(
            max_input_length=None if max_input_length is None else int(max_input_length),
            language=language,
        )

    async def summarize(
        self,
        messages: list[ContextMessage],
        *,
        date: dt.date | None = None,
        session_id: str | None = None,
        lines: tuple[int, int] | None = None,
    ) -> SummaryResult:
        """Save what is worth keeping in `messages` for `date` (today).

        With `session_id`, into the conversation's topic card; `lines` is the 1-based range of
        JSONL lines of `sessions/<session_id>.jsonl` these messages come from (see
        `remecli.knowledge.cards.card.transcript_line_range`). Without it, into the daily log.
        """
        from remecli.llm.tokens import get_token_counter

        day = date or dt.date.today()
        counter = get_token_counter(self.settings.memory.token_encoding)
        budget = max(MIN_CHUNK_TOKENS, int(self.settings.max_input_length * CHUNK_SHARE))
        chunks = chunk_transcripts(list(messages), counter, budget)
        if self.settings.memory.redact_secrets:  # the summarizer model never sees a secret
            chunks = [redact_secrets(chunk).text for chunk in chunks]
        card: Path | None = None
        if session_id:
            from remecli.knowledge.cards.card import find_session_card

            card = find_session_card(self.working_dir, day, session_id)
        path = card or self.working_dir.daily_file(day)
        if not chunks:
            return SummaryResult("nothing", path, "no text to summarize")
        asked = remember_requests(messages) if session_id else []  # "please remember: …"
        updated = card  # the card that existed before: the new turns must end up in it
        written: list[str] = []
        details: list[str] = []
        for transcript in chunks:
            if session_id:
                result = await self._run_card_agent(transcript, day, session_id, lines, card, asked)
                card = result.path or card
            else:
                result = await self._run_agent(transcript, day)
            written.extend(name for name in result.written if name not in written)
            if result.status == "failed":
                if session_id:
                    written += self._refresh_day_page(day, written)
                result.written = written
                return result
            details.append(result.detail)
        if session_id and updated is not None and updated.is_file():  # whatever the model did
            added = await add_missing_turns(
                self.working_dir,
                self.writer,
                updated,
                list(messages),
                day=day,
                session_id=session_id,
                lines=lines,
                language=self.settings.language,
                redact=self.settings.memory.redact_secrets,
            )
            written.extend(name for name in added if name not in written)
        written += self._refresh_day_page(day, written) if session_id else []
        if session_id and asked and not wrote_memory_md(messages):  # not kept by the chat model
            written += record_requests(self.working_dir, self.writer, asked, card)
        status = "written" if written else "nothing"
        detail = "; ".join(d for d in details if d) if written else NOTHING_MARKER
        return SummaryResult(status, card or path, clip(detail, 300), written)

    def _refresh_day_page(self, day: dt.date, written: list[str]) -> list[str]:
        """Regenerate the day page's card index after a card changed; its name if rewritten."""
        from remecli.knowledge.cards.day_page import refresh_day_page

        if not written or not refresh_day_page(
            self.working_dir, day, self.writer, reason="summarizer"
        ):
            return []
        name = self.working_dir.daily_file(day).relative_to(self.working_dir.root).as_posix()
        return [] if name in written else [name]

    async def _run_card_agent(
        self,
        transcript: str,
        day: dt.date,
        session_id: str,
        lines: tuple[int, int] | None,
        card: Path | None,
        asked: list[str] | None = None,
    ) -> SummaryResult:
        """One agent run that creates or updates the conversation's card; `asked`, what the
        user explicitly asked to remember (the model is told it is worth keeping)."""
        from remecli.knowledge.summary.scope import CardScope
        from remecli.knowledge.summary.tools import MemoryFileTools

        scope = CardScope(self.working_dir, day, session_id, lines, card)
        tools = MemoryFileTools(self.working_dir, day, scope, writer=self.writer)
        system, user = card_prompts(transcript, scope, asked or [], self.settings.language)

        # a small model may answer with the (new or updated) card instead of writing it
        async def rescue(answer: str) -> None:
            if card is None:
                await save_answered_card(tools, scope.folder_name(), answer)
            else:
                await save_answered_update(tools, scope.relative(card), answer)

        result = await self._run(
            tools, system, user, card or self.working_dir.daily_file(day), rescue
        )
        if scope.card is not None:
            result.path = scope.card
        return result

    async def _run_agent(self, transcript: str, day: dt.date) -> SummaryResult:
        """One agent run over one transcript chunk (daily-log layout)."""
        from remecli.knowledge.summary.tools import MemoryFileTools

        path = self.working_dir.daily_file(day)
        tools = MemoryFileTools(self.working_dir, day, writer=self.writer)
        system, user = self._prompts(transcript, tools.relative(path), day)
        return await self._run(tools, system, user, path)

    async def _run(
        self,
        tools: MemoryFileTools,
        system: str,
        user: str,
        path: Path,
        rescue: Callable[[str], Awaitable[None]] | None = None,
    ) -> SummaryResult:
        """Run the confined agent once; what it wrote, said, or why it failed. `rescue` gets
        an answer that saved nothing (it may hold what should have been written)."""
        from remecli.llm.agent_loop import build_agent_loop, final_reply
        from remecli.llm.errors import classify
        from remecli.llm.message import Message

        try:
            loop = build_agent_loop(
                self.model,
                name="memory-summarizer",
                system_prompt=system,
                tools=tools.function_tools(),
                max_retries=self.settings.llm.max_retries,
                max_iters=self.max_iters,
            )
            reply = (await final_reply(loop.run([Message.user(user)]))).message
        except Exception as exc:  # the provider's error: report it, the caller keeps the messages
            log.warning("summary failed: %s", exc)
            message = classify(exc, self.settings.llm).message
            return SummaryResult("failed", path, message, list(tools.written))
        text = reply.text.strip()
        if not tools.written and rescue is not None:  # a card in the answer still counts
            await rescue(text)
        if tools.written:
            return SummaryResult("written", path, text, list(tools.written))
        if NOTHING_MARKER in text.lower():
            return SummaryResult("nothing", path, NOTHING_MARKER)
        refused = clip(tools.refused[-1], 300) if tools.refused else ""  # the real cause
        if reply.finished_reason == "exceed_max_iters":
            why = f"the summarizer stopped after {self.max_iters} steps without saving anything"
            why += f"; its last change: {refused}" if refused else ""
        elif refused:
            why = f"nothing was saved: the model's {refused}"
        else:
            why = (
                "the model answered without saving anything and without saying "
                f"{NOTHING_MARKER} (does it support tool calls?): {clip(text, 200)!r}"
            )
        return SummaryResult("failed", path, why)

    def _prompts(self, transcript: str, daily_path: str, day: dt.date) -> tuple[str, str]:
        """(system prompt, user message) from the `summarize` prompt file."""
        from remecli.knowledge.summary.tools import daily_header

        template = load_prompt(FOLDER, "summarize", self.settings.language)
        system, _, user = template.partition(USER_PART_MARKER)
        values = {
            "daily_path": daily_path,
            "header": daily_header(day),
            "nothing_marker": NOTHING_MARKER,
            "now": f"{dt.datetime.now():%Y-%m-%d %H:%M}",
        }
        # the transcript goes in last, so braces inside it are never substituted
        return render(system.strip(), **values), render(
            user.strip(), **values, transcript=transcript
        )
