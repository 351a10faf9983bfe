"""Render cost: stream a long Markdown answer (prose, lists, code blocks) into remecli's TUI and
into a bare Textual app that streams the same text into one `Markdown` widget the documented way
(`Markdown.get_stream(widget)` + `await stream.write(fragment)` inside a `VerticalScroll`).

Both run headless, each in its own fresh process (so CPU time is that app's alone), in one run
of this script, with the same fragments at the same rate (10 tokens per fragment). remecli gets
the fragments as core `TextDelta` events through its `EventRenderer` (the path a real reply takes
after the network). Measured per fragment: lag = time from its arrival to the first frame the
app displays after its widgets took the fragment in (the bare app's `append` finished;
remecli's segment holds it). Arrival is the time the fragment was due by the schedule, not when
the app's (possibly busy) event loop ran the feeder. With `--rounds N` the two apps take turns
(bare, remecli, remecli, bare, …) and the medians of the rounds are reported. Headless, so writing the frame to a terminal is not counted, for
either app. Reported: CPU time while streaming, CPU ratio remecli / bare, and the lag median /
p95 / max.

Targets (issue 16): CPU ratio <= 1.5, max lag <= 0.5 s at 2,000 tokens/s.

`--shape code` streams one long code block instead (no blank line outside code to cut at).

Reproduce:  python benchmarks/render.py [--tokens 20000] [--rate 2000] [--shape mixed|code]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
STEP = 10  # tokens per fragment


def make_code(counter: Any, target_tokens: int) -> str:
    """One long fenced code block (a whole module in one answer)."""
    lines, i = ["```python\n"], 0
    while counter.count("".join(lines)) < target_tokens:
        i += 1
        lines.append(f"def step_{i}(value: int) -> int:\n    return value * {i} + {i}  # {i}\n\n")
    return "".join(lines) + "```\n"


def make_answer(counter: Any, target_tokens: int) -> str:
    """A long answer shaped like real ones: headings, prose, lists, code blocks."""
    parts: list[str] = []
    i = 0
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


def fragments_for(tokens: int, shape: str = "mixed") -> tuple[list[str], int, int]:
    """The answer cut into fragments of STEP tokens; also its token and code-block counts."""
    from remecli.llm.tokens import get_token_counter

    counter = get_token_counter()
    answer = (make_code if shape == "code" else make_answer)(counter, tokens)
    ids = counter.encode(answer)
    fragments = [counter.decode(ids[i : i + STEP]) for i in range(0, len(ids), STEP)]
    return fragments, len(ids), answer.count("```") // 2


class LagProbe:
    """Times each frame the app puts on screen, with how much of the answer it showed.

    `shown()` says how many characters of the answer the app's widgets hold; it is read every
    time the app displays a frame (Textual's `App._display`), so a fragment counts as seen at
    the first frame painted after a widget took it in.
    """

    def __init__(self, shown: Callable[[], int]) -> None:
        self.shown = shown
        self.frames: list[tuple[float, int]] = []  # (time a frame was displayed, chars shown)
        self.arrivals: list[tuple[float, int]] = []

    def install(self) -> None:
        from textual.app import App

        original = App._display
        probe = self

        def timed_display(app: Any, screen: Any, renderable: Any) -> None:
            original(app, screen, renderable)
            if renderable is not None:
                probe.frames.append((time.perf_counter(), probe.shown()))

        App._display = timed_display  # type: ignore[method-assign]

    @property
    def held(self) -> int:
        return self.frames[-1][1] if self.frames else 0

    def lags(self) -> list[float]:
        """Seconds from each fragment's arrival to the first frame that showed it."""
        out, j = [], 0
        for arrived, length in self.arrivals:
            while j < len(self.frames) and (
                self.frames[j][1] < length or self.frames[j][0] < arrived
            ):
                j += 1
            if j < len(self.frames):
                out.append(self.frames[j][0] - arrived)
        return out


class AppendCounter:
    """Characters a Textual `Markdown` widget holds: its finished `append` calls."""

    def __init__(self) -> None:
        self.held = 0

    def install(self) -> None:
        from textual.widgets import Markdown

        original = Markdown.append
        counter = self

        def counted_append(widget: Any, markdown: str) -> Any:
            awaitable = original(widget, markdown)

            async def wait() -> None:
                await awaitable
                counter.held += len(markdown)

            return asyncio.ensure_future(wait())

        Markdown.append = counted_append  # type: ignore[method-assign]


async def feed(
    fragments: list[str], rate: float, probe: LagProbe, write: Callable[[str], Awaitable[None]]
) -> None:
    """Deliver the fragments on a fixed schedule (as a server streaming at `rate` would)."""
    interval = STEP / rate
    t0 = time.perf_counter()
    sent = 0
    for n, fragment in enumerate(fragments):
        due = t0 + n * interval  # when the server sends it
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        sent += len(fragment)
        # stamped with its due time, not when this loop got round to it: a loop the app keeps
        # busy wakes this feeder late too, and that delay is lag the user sees
        probe.arrivals.append((due, sent))
        await write(fragment)


async def wait_held(pilot: Any, probe: LagProbe, total: int) -> None:
    """Until the widget holds the whole answer (bounded)."""
    deadline = time.perf_counter() + 120
    while probe.held < total and time.perf_counter() < deadline:
        await pilot.pause(0.02)


async def run_bare(fragments: list[str], rate: float) -> dict[str, Any]:
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Markdown

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield Markdown()

        def on_mount(self) -> None:
            self.query_one(VerticalScroll).anchor()

    counter = AppendCounter()
    counter.install()
    probe = LagProbe(lambda: counter.held)
    probe.install()
    app = Bare()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.2)
        stream = Markdown.get_stream(app.query_one(Markdown))
        cpu0, t0 = time.process_time(), time.perf_counter()
        await feed(fragments, rate, probe, stream.write)
        await stream.stop()
        await wait_held(pilot, probe, sum(map(len, fragments)))
        await pilot.pause(0.1)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    return {"cpu": cpu, "wall": wall, "lags": probe.lags()}


@contextlib.asynccontextmanager
async def booted_remecli(boot_timeout: float) -> AsyncIterator[tuple[Any, Any]]:
    """remecli's TUI headless in a scratch working dir with its agent booted (as the first key
    typed boots it: a real reply runs with the agent loaded): (app, pilot); closed after."""
    from remecli.config import load_settings
    from remecli.ui.tui.app import RemeApp

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as wd:
        settings = load_settings(
            [
                "config=cli",
                "llm.api_key=sk-bench",
                f"working_dir={wd}",
                "search.embedding.backend=none",
                "memory.summarize=false",
            ],
            environ={},
        )
        app = RemeApp(settings)
        async with app.run_test(size=(120, 40)) as pilot:
            deadline = time.perf_counter() + boot_timeout
            app.boot()
            while not app.assistant.ready or app.query_one("StatusLine").state != "ready":
                if time.perf_counter() > deadline:
                    raise RuntimeError("the agent did not boot")
                await pilot.pause(0.05)
            await pilot.pause(0.5)
            yield app, pilot
            await app.assistant.close(force=True)


async def run_remecli(fragments: list[str], rate: float) -> dict[str, Any]:
    from remecli.agent import events as ev
    from remecli.ui.tui.widgets.markdown_segment import MarkdownSegment

    segments: list[Any] = []
    probe = LagProbe(lambda: sum(len(segment.source) for segment in segments))
    probe.install()
    async with booted_remecli(boot_timeout=60) as (app, pilot):
        renderer = app.renderer
        assert renderer is not None
        original_init = MarkdownSegment.__init__

        def tracked_init(segment: Any, source: str = "", **options: Any) -> None:
            original_init(segment, source, **options)
            segments.append(segment)

        MarkdownSegment.__init__ = tracked_init  # type: ignore[method-assign]
        cpu0, t0 = time.process_time(), time.perf_counter()
        await feed(fragments, rate, probe, lambda text: renderer.render(ev.TextDelta(text)))
        await renderer.end_reply()
        await wait_held(pilot, probe, sum(map(len, fragments)))
        await pilot.pause(0.1)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    return {"cpu": cpu, "wall": wall, "lags": probe.lags()}


def child(mode: str, tokens: int, rate: float, shape: str) -> None:
    """One measurement in this process; prints one JSON line."""
    fragments, _, _ = fragments_for(tokens, shape)
    runner = run_bare if mode == "bare" else run_remecli
    result = asyncio.run(runner(fragments, rate))
    print("RESULT " + json.dumps(result))


def measure(mode: str, tokens: int, rate: float, shape: str) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", mode, "--tokens", str(tokens), "--rate", str(rate)]
    cmd += ["--shape", shape]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=ROOT)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise RuntimeError(f"{mode}: no result\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")


def median_run(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The round with the median CPU time (its lags with it)."""
    ordered = sorted(results, key=lambda r: r["cpu"])
    return ordered[(len(ordered) - 1) // 2]


def describe(name: str, result: dict[str, Any]) -> str:
    lags = result["lags"]
    p95 = statistics.quantiles(lags, n=20)[-1] if len(lags) > 1 else lags[0]
    return (
        f"{name:>8}: CPU {result['cpu']:.2f} s over {result['wall']:.1f} s "
        f"({result['cpu'] / result['wall']:.0%} of one core); lag median "
        f"{statistics.median(lags) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
        f"max {max(lags) * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--shape", choices=["mixed", "code"], default="mixed")
    parser.add_argument("--rate", type=float, default=2000.0)
    parser.add_argument("--rounds", type=int, default=1, help="runs of each app, taking turns")
    parser.add_argument("--child", choices=["bare", "remecli"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.tokens, args.rate, args.shape)
        return
    fragments, n_tokens, blocks = fragments_for(args.tokens, args.shape)
    chars = sum(map(len, fragments))
    print(f"answer: {n_tokens:,} tokens, {chars:,} chars, {blocks} code blocks")
    print(f"stream: {args.rate:g} tokens/s in {len(fragments)} fragments of {STEP} tokens")
    runs: dict[str, list[dict[str, Any]]] = {"bare": [], "remecli": []}
    for n in range(args.rounds):  # taking turns: load on the machine hits both alike
        for mode in ("bare", "remecli") if n % 2 == 0 else ("remecli", "bare"):
            runs[mode].append(measure(mode, args.tokens, args.rate, args.shape))
    ratios = [r["cpu"] / b["cpu"] for r, b in zip(runs["remecli"], runs["bare"], strict=True)]
    bare, reme = median_run(runs["bare"]), median_run(runs["remecli"])
    print(describe("bare", bare))
    print(describe("remecli", reme))
    print(
        f"CPU ratio remecli / bare: {statistics.median(ratios):.2f} (target <= 1.5; "
        f"rounds: {', '.join(f'{r:.2f}' for r in ratios)})"
    )
    print(f"max lag remecli: {max(reme['lags']):.2f} s (target <= 0.5 s)")
    print(
        f"reproduce: python benchmarks/render.py --tokens {args.tokens} --rate {args.rate:g}"
        f" --shape {args.shape} --rounds {args.rounds}"
    )


if __name__ == "__main__":
    main()
