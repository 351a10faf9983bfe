"""A long session in remecli's TUI: the same long answer streamed N times, one reply after
another (headless), each ended the way a real reply ends (`WorkEnded`: the message is finished
and the app settles). Printed per answer: CPU time of the stream, resident memory and live
Python objects (tracked plus frozen) after the app settled. Flat rows mean a long session costs
the same as a short one; rising rows mean something each answer leaves behind is kept.

    python benchmarks/render_session.py [--answers 8] [--tokens 15000] [--rate 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.render import STEP, booted_remecli, fragments_for  # noqa: E402


async def stream_answers(fragments: list[str], answers: int, rate: float) -> None:
    from remecli.agent import events as ev
    from remecli.commands import session_events as se

    process = psutil.Process()
    async with booted_remecli(boot_timeout=120) as (app, pilot):
        renderer = app.renderer
        assert renderer is not None
        interval = STEP / rate
        for n in range(1, answers + 1):
            cpu0 = time.process_time()
            await renderer.render(ev.UserMessage(f"question {n}"))
            t0 = time.perf_counter()
            for i, fragment in enumerate(fragments):
                delay = t0 + i * interval - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                await renderer.render(ev.TextDelta(fragment))
            await app._show_work(se.WorkEnded())  # finish the message, then settle
            await pilot.pause(0.3)
            cpu = time.process_time() - cpu0
            await pilot.pause(0.5)  # the settle ran after the refresh
            objects = len(gc.get_objects()) + gc.get_freeze_count()
            rss = process.memory_info().rss / 1e6
            print(
                f"answer {n}: CPU {cpu:.2f} s, RSS {rss:.0f} MB, objects {objects:,}, "
                f"widgets {len(list(app.query('*'))):,}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--answers", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=15_000)
    parser.add_argument("--rate", type=float, default=20_000.0)
    parser.add_argument("--shape", choices=["mixed", "code"], default="mixed")
    args = parser.parse_args()
    fragments, n_tokens, blocks = fragments_for(args.tokens, args.shape)
    print(f"answer: {n_tokens:,} tokens, {sum(map(len, fragments)):,} chars, {blocks} code blocks")
    asyncio.run(stream_answers(fragments, args.answers, args.rate))
    print(
        f"reproduce: python benchmarks/render_session.py --answers {args.answers} "
        f"--tokens {args.tokens} --rate {args.rate:g} --shape {args.shape}"
    )


if __name__ == "__main__":
    main()
