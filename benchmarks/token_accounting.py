"""Token accounting cost per turn vs history length, and compaction on a 300-turn conversation.

Run:  /work/venv/bin/python benchmarks/token_accounting.py [--turns 300]

Part 1 (no LLM): a `Session` holding N messages (10 … 5,000) adopts one more turn (user message
+ assistant reply with a tool call and result) and answers "how full is the context?". The
incremental path is what `ContextMiddleware` runs before every reasoning step; the "recount"
column counts every message from scratch (with cold text caches), for contrast.

Part 2: a real agentscope Agent with `ContextMiddleware` talks to the scripted fake OpenAI server
(tests/fakes) for 300 turns with tool calls of varied output sizes; prints compactions, tokens
saved, offloads and the peak context.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from remecli.conversation.session import Session  # noqa: E402
from remecli.llm.blocks import block_tokens  # noqa: E402
from remecli.llm.tokens import TokenCounter, get_token_counter  # noqa: E402


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(f"w{rng.randrange(100_000)}" for _ in range(n_words))


def _turn(rng: random.Random, index: int) -> list:
    from agentscope.message import Msg, TextBlock, ToolCallBlock, ToolResultBlock, UserMsg

    call_id = f"call_{index}"
    reply = Msg(
        name="ReMe",
        role="assistant",
        content=[
            TextBlock(text=_text(rng, 8)),
            ToolCallBlock(id=call_id, name="read", input='{"path": "a.txt"}'),
            ToolResultBlock(id=call_id, name="read", output=_text(rng, 60), state="success"),
            TextBlock(text=_text(rng, 30)),
        ],
    )
    return [UserMsg(name="user", content=_text(rng, 20)), reply]


def accounting(sizes: list[int], repeats: int) -> None:
    print("Part 1 — per-turn accounting (median of", repeats, "turns)")
    print(f"{'messages':>9} {'incremental µs':>15} {'recount µs':>12}")
    rng = random.Random(7)
    for size in sizes:
        session = Session(get_token_counter("o200k_base"), max_input_length=10**9)
        context: list = []
        for i in range(size // 2):
            context.extend(_turn(rng, i))
        session.sync(context)
        incremental, recount = [], []
        for r in range(repeats):
            context.extend(_turn(rng, size + r))
            start = time.perf_counter()
            session.sync(context)
            session.over_threshold()
            incremental.append(time.perf_counter() - start)
            if r < 5:  # the from-scratch recount is slow at 5,000: a few samples suffice
                cold = TokenCounter("o200k_base")
                start = time.perf_counter()
                sum(block_tokens(cold, b) for m in context for b in m.content)
                recount.append(time.perf_counter() - start)
        print(
            f"{size:>9,} {statistics.median(incremental) * 1e6:>15.0f} "
            f"{statistics.median(recount) * 1e6:>12.0f}"
        )


async def conversation(turns: int) -> None:
    from agentscope.agent import Agent
    from agentscope.message import TextBlock, UserMsg
    from agentscope.tool import FunctionTool, ToolChunk, Toolkit

    from remecli.agent.context_middleware import CompactionDone, ContextMiddleware, agent_kwargs
    from remecli.config.settings import LLMSettings, MemorySettings, Settings
    from remecli.llm.model import build_chat_model
    from tests.fakes import FakeOpenAIServer
    from tests.fakes.turns import ToolCallsTurn, make_tool_calls

    rng = random.Random(11)

    async def read(path: str = "") -> ToolChunk:
        """Read a file.

        Args:
            path: the file
        """
        size = rng.choice([40, 120, 400, 1500])  # words; the largest get offloaded
        return ToolChunk(content=[TextBlock(text=_text(rng, size))])

    def answer(body: dict):
        system = str(body["messages"][0]["content"])
        if "context checkpoint" in system:
            return "\n\n".join(
                f"{h}\n- {_text(rng, 25)}"
                for h in (
                    "## Goal",
                    "## Constraints & Preferences",
                    "## Progress",
                    "## Key Decisions",
                    "## Next Steps",
                    "## Critical Context",
                )
            )
        if body["messages"][-1]["role"] == "user" and rng.random() < 0.5:
            return ToolCallsTurn(calls=make_tool_calls([("read", {"path": "f.txt"})]))
        return _text(rng, rng.choice([20, 60, 150]))

    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        server.set_fallback(answer)
        settings = Settings(
            working_dir=str(Path(tmp) / ".reme"),
            max_input_length=32_000,
            memory_compact_ratio=0.7,
            llm=LLMSettings(base_url=server.base_url, api_key="sk", model_name="fake-model"),
            memory=MemorySettings(keep_recent_tokens=4_000),
        )
        notices: list = []
        mw = ContextMiddleware(settings, on_notice=notices.append)
        agent = Agent(
            name="ReMe",
            system_prompt="You are a benchmark assistant.",
            model=build_chat_model(
                settings.llm, context_size=settings.max_input_length
            ).agent_model(),
            toolkit=Toolkit(tools=[FunctionTool(read, is_read_only=True)]),
            middlewares=[mw],
            **agent_kwargs(),
        )
        peak, start = 0, time.perf_counter()
        for _ in range(turns):
            msg = UserMsg(name="user", content=_text(rng, rng.choice([10, 50, 300])))
            async for _ in agent.reply_stream(msg):
                pass
            peak = max(peak, mw.session.context_tokens())
        elapsed = time.perf_counter() - start
        done = [n for n in notices if isinstance(n, CompactionDone)]
        offloads = [n for n in notices if type(n).__name__ == "ToolResultOffloaded"]
        saved = sum(d.tokens_saved for d in done)
        print(f"\nPart 2 — {turns}-turn scripted conversation (window 32,000, compact at 70%)")
        print(f"  compactions: {len(done)}  (stages total {sum(d.stages for d in done)})")
        print(f"  tokens saved by compaction: {saved:,}  (mean {saved // max(1, len(done)):,})")
        print(f"  tool results offloaded: {len(offloads)}")
        print(f"  peak estimated context: {peak:,} tokens (threshold {int(32_000 * 0.7):,})")
        print(
            f"  final context: {mw.session.context_tokens():,} tokens, "
            f"{len(agent.state.context)} messages; "
            f"{len(mw.session.all_messages())} messages in the transcript"
        )
        print(
            f"  chat requests: {len(server.chat_requests())}, violations: {len(server.violations)}"
        )
        print(f"  wall time: {elapsed:.1f} s ({elapsed / turns * 1000:.0f} ms/turn incl. HTTP)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    print(
        "Command: /work/venv/bin/python benchmarks/token_accounting.py "
        f"--turns {args.turns} --repeats {args.repeats}\n"
    )
    accounting([10, 100, 1_000, 5_000], args.repeats)
    asyncio.run(conversation(args.turns))


if __name__ == "__main__":
    main()
