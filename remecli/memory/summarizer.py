"""The summarizer: a small ReAct agent that merges a conversation into today's memory log.

It sees the conversation as a readable transcript (roles, local times, shortened tool calls,
clipped tool outputs) and has three file tools confined to the memory files
(`remecli.memory.summary_tools`). It reads `memory/YYYY-MM-DD.md` first, merges new entries
(`- HH:MM text`, chronological, no duplicates), or answers `[nothing to store]` and touches
nothing. A conversation too large for one request is summarized in chunks, one agent run each.
`summarize` never raises (except on cancellation): failures come back as `status="failed"`.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remecli.config.settings import Settings
from remecli.memory import prompts
from remecli.memory.blocks import block_text, clip
from remecli.memory.layout import WorkingDir
from remecli.prompt_files import load_prompt, render

log = logging.getLogger(__name__)

NOTHING_MARKER = "[nothing to store]"
USER_PART_MARKER = "<!-- user -->"
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


def message_lines(msg: Any, last_day: dt.date | None = None) -> tuple[list[str], dt.date | None]:
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


def render_transcript(messages: list[Any]) -> str:
    """The conversation as readable text: roles, times, tool calls shortened, outputs clipped."""
    out: list[str] = []
    day: dt.date | None = None
    for msg in messages:
        lines, day = message_lines(msg, day)
        out.extend(lines)
    return "\n".join(out)


def chunk_transcripts(messages: list[Any], counter: Any, budget: int) -> list[str]:
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
        model: Any = None,
        *,
        max_iters: int = DEFAULT_MAX_ITERS,
    ) -> None:
        self.settings = settings
        self.working_dir = working_dir
        self.max_iters = max_iters
        self._model = model

    @property
    def model(self) -> Any:
        """The chat model (built from settings on first use, non-streaming)."""
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
        if max_input_length is not None:
            self.settings.max_input_length = int(max_input_length)
        if language is not None:
            self.settings.language = language  # type: ignore[assignment]

    async def summarize(self, messages: list[Any], *, date: dt.date | None = None) -> SummaryResult:
        """Merge what is worth keeping in `messages` into the daily file of `date` (today)."""
        from remecli.llm.tokens import get_token_counter

        day = date or dt.date.today()
        path = self.working_dir.daily_file(day)
        counter = get_token_counter(self.settings.memory.token_encoding)
        budget = max(MIN_CHUNK_TOKENS, int(self.settings.max_input_length * CHUNK_SHARE))
        chunks = chunk_transcripts(list(messages), counter, budget)
        if not chunks:
            return SummaryResult("nothing", path, "no text to summarize")
        written: list[str] = []
        details: list[str] = []
        for transcript in chunks:
            result = await self._run_agent(transcript, day)
            written.extend(name for name in result.written if name not in written)
            if result.status == "failed":
                result.written = written
                return result
            details.append(result.detail)
        status = "written" if written else "nothing"
        detail = "; ".join(d for d in details if d) if written else NOTHING_MARKER
        return SummaryResult(status, path, clip(detail, 300), written)

    async def _run_agent(self, transcript: str, day: dt.date) -> SummaryResult:
        """One agent run over one transcript chunk."""
        from agentscope.agent import Agent, ContextConfig, InjectionConfig, ReActConfig
        from agentscope.message import UserMsg
        from agentscope.tool import Toolkit

        from remecli.llm.errors import classify
        from remecli.llm.retry import RetryMiddleware
        from remecli.memory.summary_tools import MemoryFileTools, NoCompression

        path = self.working_dir.daily_file(day)
        tools = MemoryFileTools(self.working_dir, day)
        system, user = self._prompts(transcript, tools.relative(path), day)
        try:
            agent = Agent(
                name="memory-summarizer",
                system_prompt=system,
                model=self.model,
                toolkit=Toolkit(tools=tools.function_tools()),
                middlewares=[RetryMiddleware(self.settings.llm.max_retries), NoCompression()],
                react_config=ReActConfig(
                    max_iters=self.max_iters, interruption_raise_cancelled_error=True
                ),
                context_config=ContextConfig(tool_result_limit=10**9),
                injection_config=InjectionConfig(inject_runtime_state=False),
            )
            reply = await agent.reply(UserMsg(name="user", content=user))
        except Exception as exc:  # the provider's error: report it, the caller keeps the messages
            log.warning("summary failed: %s", exc)
            message = classify(exc, self.settings.llm).message
            return SummaryResult("failed", path, message, list(tools.written))
        text = (reply.get_text_content() or "").strip()
        if tools.written:
            return SummaryResult("written", path, text, list(tools.written))
        if NOTHING_MARKER in text.lower():
            return SummaryResult("nothing", path, NOTHING_MARKER)
        if reply.finished_reason == "exceed_max_iters":
            why = f"the summarizer stopped after {self.max_iters} steps without saving anything"
        else:
            why = (
                "the model answered without saving anything and without saying "
                f"{NOTHING_MARKER} (does it support tool calls?): {clip(text, 200)!r}"
            )
        return SummaryResult("failed", path, why)

    def _prompts(self, transcript: str, daily_path: str, day: dt.date) -> tuple[str, str]:
        """(system prompt, user message) from the `summarize` prompt file."""
        from remecli.memory.summary_tools import daily_header

        template = load_prompt(prompts.FOLDER, "summarize", self.settings.language)
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
