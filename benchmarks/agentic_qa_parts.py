"""The parts of the agentic QA harness (`benchmarks/agentic_qa.py`): the memory a LoCoMo
conversation becomes, the answering agent with remecli's real memory tools, and the judge.

- Memory: each session becomes a topic card `memory/<day>/session-NN.md` (frontmatter `name`,
  `description`; one turn per line) and each day's page `memory/<day>.md` indexes its cards (the
  code that maintains day pages writes it), so `memory_links` has links to follow.
- Agent: agentscope's ReAct agent with exactly `memory_search`, `memory_links` and `read`, bound
  to a real `FileMemory` runtime (index, link graph, writer), at most `max_steps` reasoning
  steps. Tool calls written as text by small models go through the same provider seam as in
  the app (`llm.text_tool_calls`).
- Judge: one JSON answer `{"correct": true|false}` (structured output where the server has it).
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from remecli.config.settings import Settings
from remecli.conversation.file_memory import FileMemory
from remecli.knowledge.cards.day_page import refresh_day_page
from remecli.notes.layout import WorkingDir

MEMORY_TOOLS = ("memory_search", "memory_links", "read")
AGENT_PROMPT = """You answer questions about past conversations between {speakers}, which are
stored as notes in your memory folder (one note per conversation session, dated).

Work in steps with your tools: `memory_search` with the question's key words; `memory_links`
on a hit to see related notes (the day page, other sessions); `read` a note when a snippet is
not enough. Dates matter: a note's name gives the day its session happened, and "yesterday" or
"last week" in a message are relative to that day.

Answer in one short sentence with the fact asked for (a name, a date, a place, a number). If
the memory does not hold the answer, say so."""
JUDGE_PROMPT = """You grade an answer to a question about a past conversation.

Question: {question}
Gold answer: {gold}
Answer given: {answer}

The answer is correct when it states the gold answer's fact (other words, a paraphrase, or an
equivalent date or number are fine; extra detail is fine if it does not contradict it). For a
question whose gold answer says the information is not available, the answer is correct only
when it also says it does not know or cannot find it. Reply with JSON:
{{"correct": true}} or {{"correct": false}}"""


class Verdict(BaseModel):
    """The judge's answer."""

    correct: bool


@dataclass
class Answered:
    """One question's outcome: the agent's answer, its cost and the verdict."""

    question: str
    gold: str
    category: int
    answer: str = ""
    correct: bool = False
    finished: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    tool_calls: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    problem: str = ""

    @property
    def calls(self) -> int:
        """Tool calls made in all."""
        return sum(self.tool_calls.values())


# ---------------------------------------------------------------- memory
def session_day(stamp: str) -> dt.date | None:
    """LoCoMo's "1:56 pm on 8 May, 2023" as a date (None when it does not parse)."""
    try:
        return dt.datetime.strptime(stamp.strip(), "%I:%M %p on %d %B, %Y").date()
    except ValueError:
        return None


def write_memory(sample: dict[str, Any], root: Path, writer: Any) -> int:
    """The conversation's sessions as cards under `root`, and their day pages; session count."""
    layout = WorkingDir(root).ensure()
    conversation = sample["conversation"]
    speakers = f"{conversation.get('speaker_a', '?')} and {conversation.get('speaker_b', '?')}"
    numbers = sorted(
        int(key.split("_")[1])
        for key in conversation
        if key.startswith("session_") and key.split("_")[1].isdigit() and len(key.split("_")) == 2
    )
    days: set[dt.date] = set()
    for n in numbers:
        stamp = str(conversation.get(f"session_{n}_date_time", ""))
        day = session_day(stamp) or dt.date(2000, 1, 1)
        days.add(day)
        lines = [
            "---",
            f"name: Session {n} ({stamp or 'undated'})",
            f"description: Conversation between {speakers} on {stamp or 'an unknown day'}.",
            "tags: [conversation]",
            "---",
            f"# Session {n} — {stamp}",
            "",
        ]
        for turn in conversation[f"session_{n}"]:
            text = " ".join(str(turn.get("text", "")).split())
            if turn.get("blip_caption"):
                text += f" [shared an image: {turn['blip_caption']}]"
            lines.append(f"- {turn['speaker']}: {text}")
        target = layout.memory_dir / f"{day:%Y-%m-%d}" / f"session-{n:02d}.md"
        content = "\n".join(lines) + "\n"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_text(encoding="utf-8") != content:
            target.write_text(content, encoding="utf-8")
    for day in sorted(days):
        refresh_day_page(layout, day, writer, reason="agentic QA memory")
    return len(numbers)


def memory_settings(base: Settings, root: Path) -> Settings:
    """`base` with the working dir at `root` and nothing running in the background."""
    return base.with_changes(
        {
            "working_dir": str(root),
            "tools.workspace": str(root),
            "memory.summarize": False,
            "memory.dream.auto": False,
            "memory.history.enabled": False,
            "search.watch": False,
        }
    )


async def open_memory(settings: Settings) -> FileMemory:
    """The real memory runtime on the conversation's working dir, its index synced."""
    memory = FileMemory(
        settings.working_dir, settings=settings, workspace=Path(settings.working_dir)
    )
    await memory.start(wait_for_index=True, background=False, watch=False)
    if memory.index is None:
        raise RuntimeError(f"the memory index did not open: {memory.index_failure}")
    return memory


# ---------------------------------------------------------------- agent and judge
def memory_tools(memory: FileMemory, settings: Settings) -> list[Any]:
    """`memory_search`, `memory_links` and `read`, bound to `memory` as the app binds them."""
    from remecli.tools.context import ToolContext
    from remecli.tools.registry import build_tools

    root = Path(settings.working_dir)
    ctx = ToolContext(
        workspace=root, working_dir=root, settings=settings.tools, writer=memory.writer
    )
    tools = [t for t in build_tools(ctx, memory=memory) if t.name in MEMORY_TOOLS]
    missing = set(MEMORY_TOOLS) - {t.name for t in tools}
    if missing:
        raise RuntimeError(f"memory tools not offered: {sorted(missing)}")
    return tools


async def ask_agent(
    settings: Settings, tools: list[Any], speakers: str, qa: dict[str, Any], max_steps: int
) -> Answered:
    """One question answered by a fresh agent (no memory of the other questions)."""
    from remecli.agent import events as ev
    from remecli.agent.translate import EventTranslator
    from remecli.llm.agent_loop import build_agent_loop
    from remecli.llm.message import Message
    from remecli.llm.model import build_chat_model

    gold = str(qa.get("answer", qa.get("adversarial_answer", "")))
    result = Answered(str(qa["question"]), gold, int(qa.get("category", 0)))
    model = build_chat_model(settings.llm, context_size=settings.max_input_length)
    loop = build_agent_loop(  # the loop remecli's own agents run on, confined to max_steps
        model,
        name="qa",
        system_prompt=AGENT_PROMPT.format(speakers=speakers),
        tools=tools,
        max_retries=settings.llm.max_retries,
        max_iters=max_steps,
    )
    translator = EventTranslator()
    started = time.monotonic()
    try:
        async for item in loop.run([Message.user(result.question)]):
            for event in translator.translate(item):
                if isinstance(event, ev.ToolCallReady):
                    result.tool_calls[event.name] = result.tool_calls.get(event.name, 0) + 1
    except Exception as exc:  # the provider's error: the question counts as unanswered
        result.problem = f"{type(exc).__name__}: {exc}"
    finally:
        await model.aclose()
    result.seconds = time.monotonic() - started
    result.answer = "".join(translator.text).strip()
    result.finished = translator.finished_reason or "error"
    result.input_tokens = translator.usage["input_tokens"]
    result.output_tokens = translator.usage["output_tokens"]
    return result


async def judge(judge_model: Any, answered: Answered) -> None:
    """Set `answered.correct` from the judge's verdict (False, with the problem, on failure)."""
    from remecli.llm.chat_model import JSONAnswerError, user

    if not answered.answer:
        answered.problem = answered.problem or "no answer"
        return
    prompt = JUDGE_PROMPT.format(
        question=answered.question, gold=answered.gold, answer=answered.answer
    )
    try:
        verdict = await judge_model.complete_json([user(prompt)], Verdict)
    except JSONAnswerError as exc:
        answered.problem = f"judge: {exc.problem}"
        return
    answered.correct = bool(Verdict.model_validate(verdict).correct)
