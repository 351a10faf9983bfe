"""Render lag: stream a 20,000-token Markdown answer (prose, lists, code blocks) at 500 tokens/s
into the headless TUI and measure how far the view falls behind the stream.

The answer is fed as core `TextDelta` events to the app's `EventRenderer` (the same path a
real reply takes after the network), 10 tokens every 20 ms. For each fragment, lag = time from
its arrival to the end of the Markdown widget's `append` that rendered it (parsed and mounted;
Textual then paints at its next frame). Also reported: total CPU time of the process.

Reproduce:  python benchmarks/render.py [--tokens 20000] [--rate 500]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def make_answer(counter, target_tokens: int) -> str:
    parts, i = [], 0
    while counter.count("".join(parts)) < target_tokens:
        i += 1
        parts.append(
            f"## Step {i}: refactor the loader\n\nWe read the **config** files in order, merge them, and"
            f" validate the result with `pydantic`. Each override is typed; errors name the key.\n\n"
            f"- parse `key=value` pairs\n- look up `config={i}` by name\n- report one clear line\n\n"
            f"```python\ndef load_{i}(path: str) -> dict:\n    with open(path) as fh:\n"
            f"        data = yaml.safe_load(fh) or {{}}\n    return {{k: v for k, v in data.items() if v}}\n```\n\n"
        )
    return "".join(parts)


async def run(tokens: int, rate: float) -> None:
    from textual.widgets import Markdown

    from remecli.agent import events as ev
    from remecli.config import load_settings
    from remecli.llm.tokens import get_token_counter
    from remecli.ui.tui.app import RemeApp

    counter = get_token_counter()
    answer = make_answer(counter, tokens)
    ids = counter.encode(answer)
    step = 10
    fragments = [counter.decode(ids[i : i + step]) for i in range(0, len(ids), step)]
    interval = step / rate

    done_marks: list[tuple[float, int]] = []  # (time an append finished, chars rendered so far)
    rendered = 0
    original_append = Markdown.append

    def timed_append(self, markdown: str):
        awaitable = original_append(self, markdown)

        async def wait() -> None:
            nonlocal rendered
            await awaitable
            rendered += len(markdown)
            done_marks.append((time.perf_counter(), rendered))

        return asyncio.ensure_future(wait())

    Markdown.append = timed_append
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as wd:
        settings = load_settings(
            [
                "config=cli",
                "llm.api_key=sk-bench",
                f"working_dir={wd}",
                "search.embedding.backend=none",
            ],
            environ={},
        )
        app = RemeApp(settings)
        arrivals: list[tuple[float, int]] = []
        async with app.run_test(size=(120, 40)) as pilot:
            while app.query_one("StatusLine").state != "ready":  # agent booted: not measured
                await pilot.pause(0.05)
            cpu0, t0 = time.process_time(), time.perf_counter()
            sent = 0
            for n, fragment in enumerate(fragments):
                target = t0 + n * interval
                delay = target - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                sent += len(fragment)
                arrivals.append((time.perf_counter(), sent))
                await app.renderer.render(ev.TextDelta(fragment))
            await app.renderer.end_reply()
            await pilot.pause(0.1)
            wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    Markdown.append = original_append

    lags, j = [], 0
    for arrived, length in arrivals:
        while j < len(done_marks) and done_marks[j][1] < length:
            j += 1
        if j < len(done_marks):
            lags.append(done_marks[j][0] - arrived)
    print(
        f"answer: {len(ids):,} tokens, {len(answer):,} chars, {answer.count('```') // 2} code blocks"
    )
    print(
        f"stream: {rate:g} tokens/s in {len(fragments)} fragments of {step} tokens; wall {wall:.1f} s"
    )
    print(
        f"view lag behind the stream: median {statistics.median(lags) * 1000:.0f} ms, "
        f"p95 {statistics.quantiles(lags, n=20)[-1] * 1000:.0f} ms, max {max(lags) * 1000:.0f} ms"
    )
    print(f"CPU time: {cpu:.1f} s ({cpu / wall:.0%} of one core)")
    print(f"reproduce: python benchmarks/render.py --tokens {tokens} --rate {rate:g}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--rate", type=float, default=500.0)
    args = parser.parse_args()
    asyncio.run(run(args.tokens, args.rate))


if __name__ == "__main__":
    main()
