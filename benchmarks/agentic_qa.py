"""Agentic QA over LoCoMo: the agent answers with its real memory tools, an LLM judge scores it.

LongMemEval-style: for each question a fresh agent gets only `memory_search`, `memory_links` and
`read` over a memory built from one LoCoMo conversation (its sessions as dated topic cards, day
pages linking them; see `benchmarks/agentic_qa_parts.py`), at most `--max-steps` reasoning
steps; a judge model compares its answer with the gold one. Reports accuracy per question type,
and per question the tokens the agent used and the tool calls it made; prints the command.

    PYTHONPATH=. python benchmarks/agentic_qa.py --base-url http://127.0.0.1:8080/v1 \\
        --model qwen [--judge-base-url URL --judge-model NAME] [--conversations 0]
        [--questions 10] [--categories 1,2,3,4] [--max-steps 6] [--out answers.jsonl]

Any OpenAI-compatible endpoint (OpenAI, llama.cpp's llama-server, Ollama, LM Studio, vLLM); the
key comes from --api-key or $OPENAI_API_KEY (the judge's from --judge-api-key, else the same).
The judge defaults to the agent's endpoint and model. Runs on `../shared/data/locomo10.json`
out of the box (LoCoMo is CC BY-NC 4.0: evaluation only, nothing copied into the project).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.agentic_qa_parts import (  # noqa: E402
    Answered,
    ask_agent,
    judge,
    memory_settings,
    memory_tools,
    open_memory,
    write_memory,
)
from remecli.config.settings import LLMSettings, Settings  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo10.json"
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
SECRET_FLAGS = ("--api-key", "--judge-api-key")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module doc)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/remecli-agentic-qa"))
    parser.add_argument("--conversations", default="0", help="indexes: 0, 0-4, 0,3,7 ('' = all)")
    parser.add_argument("--questions", type=int, default=0, help="per conversation (0 = all)")
    parser.add_argument("--categories", default="1,2,3,4", help="LoCoMo categories to ask")
    parser.add_argument("--max-steps", type=int, default=6, help="reasoning steps per answer")
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL", ""))
    parser.add_argument("--model", default="")
    parser.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "sk-local"))
    parser.add_argument("--judge-base-url", default="")
    parser.add_argument("--judge-model", default="")
    parser.add_argument("--judge-api-key", default="")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per model request")
    parser.add_argument("--window", type=int, default=32_000, help="the model's context window")
    parser.add_argument("--embedding", default="local", help="search.embedding.backend")
    parser.add_argument(
        "--no-text-tool-calls", action="store_true", help="llm.text_tool_calls=false"
    )
    parser.add_argument("--out", type=Path, default=None, help="write each answer as JSONL")
    args = parser.parse_args(argv)
    if not args.base_url or not args.model:
        parser.error("--base-url and --model are required (any OpenAI-compatible endpoint)")
    return args


def select(samples: list[dict], spec: str) -> list[dict]:
    """Conversations by index: '0', '0-4', '0,3,7' or '' for all."""
    if not spec.strip():
        return samples
    chosen: list[int] = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        low, high = int(first), int(last or first)
        if not 0 <= low <= high < len(samples):
            raise SystemExit(
                f"--conversations {spec!r}: indexes must be within 0-{len(samples) - 1}"
            )
        chosen += range(low, high + 1)
    return [samples[k] for k in dict.fromkeys(chosen)]


def questions(sample: dict, categories: set[int], limit: int) -> list[dict]:
    """Up to `limit` questions of `categories`, taken in turn from each category (data order)."""
    by_category: dict[int, list[dict]] = defaultdict(list)
    for qa in sample.get("qa", []):
        if qa.get("category") in categories:
            by_category[int(qa["category"])].append(qa)
    picked: list[dict] = []
    queues = [list(by_category[c]) for c in sorted(by_category)]
    while any(queues) and (not limit or len(picked) < limit):
        for queue in queues:
            if queue and (not limit or len(picked) < limit):
                picked.append(queue.pop(0))
    return picked


def endpoint(base_url: str, model: str, key: str, timeout: float, text_calls: bool) -> LLMSettings:
    """Chat settings for one endpoint."""
    return LLMSettings(
        base_url=base_url,
        api_key=key,
        model_name=model,
        temperature=0.0,
        timeout=timeout,
        max_retries=2,
        text_tool_calls=text_calls,
    )


async def run(args: argparse.Namespace) -> list[Answered]:
    """Every selected question of every selected conversation, answered and judged."""
    from remecli.llm.model import build_chat_model
    from remecli.notes.writer import MemoryWriter

    samples = select(json.loads(args.data.read_text(encoding="utf-8")), args.conversations)
    categories = {int(c) for c in args.categories.split(",") if c.strip()}
    agent_llm = endpoint(
        args.base_url, args.model, args.api_key, args.timeout, not args.no_text_tool_calls
    )
    judge_llm = endpoint(
        args.judge_base_url or args.base_url,
        args.judge_model or args.model,
        args.judge_api_key or args.api_key,
        args.timeout,
        True,
    )
    judge_model = build_chat_model(judge_llm, stream=False)
    base = Settings(llm=agent_llm, max_input_length=args.window).with_changes(
        {"search.embedding.backend": args.embedding}
    )
    answered: list[Answered] = []
    try:
        for sample in samples:
            root = (args.workdir / str(sample.get("sample_id", "conversation"))).resolve()
            settings = memory_settings(base, root)
            sessions = write_memory(sample, root, MemoryWriter.from_settings(root, settings.memory))
            memory = await open_memory(settings)
            conversation = sample["conversation"]
            speakers = f"{conversation.get('speaker_a')} and {conversation.get('speaker_b')}"
            picked = questions(sample, categories, args.questions)
            print(
                f"{sample.get('sample_id')}: {sessions} sessions, {len(picked)} questions",
                file=sys.stderr,
            )
            try:
                tools = memory_tools(memory, settings)
                for number, qa in enumerate(picked, start=1):
                    result = await ask_agent(settings, tools, speakers, qa, args.max_steps)
                    await judge(judge_model, result)
                    answered.append(result)
                    mark = "ok " if result.correct else "no "
                    print(
                        f"  [{number}/{len(picked)}] {mark}{result.calls} calls "
                        f"{result.seconds:.0f}s {result.question[:70]!r} → {result.answer[:70]!r}",
                        file=sys.stderr,
                    )
                    if args.out:
                        with args.out.open("a", encoding="utf-8") as out:
                            out.write(json.dumps(vars(result), ensure_ascii=False) + "\n")
            finally:
                await memory.close(wait=False)
    finally:
        await judge_model.aclose()
    return answered


def report(answered: list[Answered], args: argparse.Namespace, argv: list[str]) -> None:
    """Accuracy per question type, tokens and tool calls per question, and the command."""
    print(
        f"\nAgentic QA on LoCoMo: agent {args.model} at {args.base_url}; judge "
        f"{args.judge_model or args.model}; at most {args.max_steps} steps per answer"
    )
    header = (
        f"{'type':<16}{'n':>5}{'accuracy':>10}{'tokens in':>11}{'tokens out':>12}"
        f"{'tool calls':>12}{'seconds':>9}"
    )
    print(header)
    print("-" * len(header))
    groups: dict[str, list[Answered]] = defaultdict(list)
    for result in answered:
        groups[f"{result.category} {CATEGORY_NAMES.get(result.category, '?')}"].append(result)
    for name, rows in [*sorted(groups.items()), ("all", answered)]:
        if not rows:
            continue
        n = len(rows)
        print(
            f"{name:<16}{n:>5}{sum(r.correct for r in rows) / n:>10.3f}"
            f"{sum(r.input_tokens for r in rows) / n:>11.0f}"
            f"{sum(r.output_tokens for r in rows) / n:>12.0f}"
            f"{sum(r.calls for r in rows) / n:>12.2f}{sum(r.seconds for r in rows) / n:>9.1f}"
        )
    by_tool: dict[str, int] = defaultdict(int)
    for result in answered:
        for name, count in result.tool_calls.items():
            by_tool[name] += count
    print(
        "tool calls in all: "
        + (", ".join(f"{k} {v}" for k, v in sorted(by_tool.items())) or "none")
    )
    unfinished = [r for r in answered if r.finished != "completed"]
    problems = [r for r in answered if r.problem]
    print(
        f"replies not completed: {len(unfinished)}; with a problem: {len(problems)}"
        + (f" (first: {problems[0].problem})" if problems else "")
    )
    print("(tokens, tool calls and seconds are per question, the agent's only; the judge's aside)")
    print(f"reproduce: PYTHONPATH=. python benchmarks/agentic_qa.py {shlex.join(public(argv))}")


def public(argv: list[str]) -> list[str]:
    """The arguments with API keys masked."""
    shown: list[str] = []
    hide = False
    for item in argv:
        flag = item.split("=", 1)[0]
        if hide:
            shown.append("***")
        elif flag in SECRET_FLAGS and "=" in item:
            shown.append(f"{flag}=***")
        else:
            shown.append(item)
        hide = item in SECRET_FLAGS
    return shown


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if not args.data.is_file():
        print(f"SKIPPED: LoCoMo data not found at {args.data} (pass --data PATH)")
        return 0
    answered = asyncio.run(run(args))
    report(answered, args, argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
