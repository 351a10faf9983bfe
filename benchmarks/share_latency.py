"""Latency of the shared memory surfaces at scale: MCP and HTTP `memory_search` under 8 clients.

On a synthetic working dir (default 10,000 Markdown files under memory/), keyword-only search
(`search.embedding.backend=none`: embedding 10k files with the local model would take hours
here, and the surfaces add the same overhead whatever the search costs). In one run:

1. in-process `FileMemory.memory_search` (the call every job makes), 1 caller, then 8 concurrent;
2. `remecli serve` (real uvicorn process): 1, then 8 concurrent HTTP clients on /api/memory_search;
3. `remecli mcp --http` (real process): 1, then 8 concurrent MCP client sessions (memory_search);

the 8-caller phases last `--seconds` (60 by default), the 1-caller ones a quarter of that;
reported: p50/p95/max, calls, errors and the server's RSS after warm-up and at the end.

    python benchmarks/share_latency.py [--files 10000] [--sections 5] [--seconds 60] [--clients 8]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from search_scale import write_workspace  # noqa: E402
from serve_process import rss_mb, served  # noqa: E402

from remecli.config import load_settings  # noqa: E402
from remecli.conversation.file_memory import FileMemory  # noqa: E402

SETTINGS = ["search.embedding.backend=none", "search.watch=false", "memory.summarize=false"]
Call = Callable[[str], Awaitable[bool]]


def percentiles(values: list[float]) -> str:
    if not values:
        return "no calls"
    ms = np.asarray(values) * 1000
    return (
        f"p50 {np.percentile(ms, 50):7.1f} ms  p95 {np.percentile(ms, 95):7.1f} ms  "
        f"max {ms.max():7.1f} ms  calls {len(values)}"
    )


async def drive(calls: list[Call], queries: list[str], seconds: float) -> tuple[list[float], int]:
    """Each caller loops over queries until the deadline; returns latencies and error count."""
    latencies: list[float] = []
    errors = 0
    deadline = time.monotonic() + seconds

    async def loop(call: Call, offset: int) -> None:
        nonlocal errors
        i = offset
        while time.monotonic() < deadline:
            start = time.perf_counter()
            ok = await call(queries[i % len(queries)])
            latencies.append(time.perf_counter() - start)
            errors += not ok
            i += 7

    await asyncio.gather(*(loop(call, n) for n, call in enumerate(calls)))
    return latencies, errors


def make_queries(root: Path, count: int, seed: int = 3) -> list[str]:
    """2-3 words taken from the files themselves."""
    rng = random.Random(seed)
    files = sorted((root / "memory").rglob("*.md"))
    queries = []
    for _ in range(count):
        words = re.findall(r"[a-z]{4,}", rng.choice(files).read_text(encoding="utf-8"))
        queries.append(" ".join(rng.sample(words, k=min(len(words), rng.randint(2, 3)))))
    return queries


async def in_process(workdir: Path, queries: list[str], seconds: float, clients: int) -> None:
    settings = load_settings([f"working_dir={workdir}", *SETTINGS])
    memory = FileMemory(workdir, settings=settings)
    started = time.perf_counter()
    await memory.start(wait_for_index=True)
    print(f"index open + sync: {time.perf_counter() - started:.1f} s")

    async def call(query: str) -> bool:
        await memory.memory_search(query, 5, 0.0)
        return True

    await drive([call], queries[:20], 2)  # warm-up
    one, _ = await drive([call], queries, seconds / 4)
    print(f"in-process, 1 caller      {percentiles(one)}")
    many, _ = await drive([call] * clients, queries, seconds)
    print(f"in-process, {clients} callers     {percentiles(many)}")
    await memory.close()


async def over_http(url: str, token: str, queries: list[str], seconds: float, clients: int):
    import httpx

    headers = {"Authorization": f"Bearer {token}"}
    pool = [httpx.AsyncClient(base_url=url, headers=headers, timeout=120) for _ in range(clients)]

    def caller(client: httpx.AsyncClient) -> Call:
        async def call(query: str) -> bool:
            answer = await client.post("/api/memory_search", json={"query": query})
            return answer.status_code == 200

        return call

    calls = [caller(c) for c in pool]
    await drive(calls, queries[:20], 3)
    result = await drive(calls, queries, seconds)
    for client in pool:
        await client.aclose()
    return result


async def over_mcp(url: str, token: str, queries: list[str], seconds: float, clients: int):
    from contextlib import AsyncExitStack

    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with AsyncExitStack() as stack:
        sessions = []
        for _ in range(clients):
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
            )
            client = Client(streamable_http_client(f"{url}/mcp", http_client=http))
            sessions.append(await stack.enter_async_context(client))

        def caller(session: Client) -> Call:
            async def call(query: str) -> bool:
                result = await session.call_tool("memory_search", {"query": query})
                return not result.is_error

            return call

        calls = [caller(s) for s in sessions]
        await drive(calls, queries[:20], 3)
        return await drive(calls, queries, seconds)


def remote(kind: str, workdir: Path, queries: list[str], seconds: float, clients: int) -> None:
    args = ["serve", "--port", "0"] if kind == "http" else ["mcp", "--http", "--port", "0"]
    run = over_http if kind == "http" else over_mcp
    with served(args, workdir, SETTINGS) as (proc, url):
        token = (workdir / "serve.token").read_text().strip()
        # warm-up also waits for the index to open; RSS is taken after it
        asyncio.run(run(url, token, queries, 2, 1))
        warm = rss_mb(proc)
        single, single_errors = asyncio.run(run(url, token, queries, seconds / 4, 1))
        latencies, errors = asyncio.run(run(url, token, queries, seconds, clients))
        end = rss_mb(proc)
    label = "HTTP /api/memory_search" if kind == "http" else "MCP memory_search (HTTP)"
    print(f"{label}, 1 client   {percentiles(single)}  errors {single_errors}")
    print(f"{label}, {clients} clients  {percentiles(latencies)}  errors {errors}")
    print(
        f"    server RSS {warm:.0f} MB after warm-up -> {end:.0f} MB at the end ({end - warm:+.0f} MB)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--sections", type=int, default=5, help="sections (≈ chunks) per file")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each timed phase")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/remecli-share-bench"))
    args = parser.parse_args()
    workdir: Path = args.workdir / f"{args.files}x{args.sections}" / ".reme"
    marker = workdir / "memory" / ".complete"
    if not marker.exists():
        started = time.perf_counter()
        write_workspace(workdir, args.files, args.sections)
        (workdir / "MEMORY.md").write_text(
            "# MEMORY\n\n- Benchmark working dir.\n", encoding="utf-8"
        )
        marker.write_text("ok\n")
        print(f"wrote {args.files} files in {time.perf_counter() - started:.1f} s")
    queries = make_queries(workdir, 200)
    print(
        f"{args.files} memory files, {args.sections} sections each, keyword-only search "
        f"(search.embedding.backend=none); {args.clients} clients, {args.seconds:.0f} s per phase"
    )
    asyncio.run(in_process(workdir, queries, args.seconds, args.clients))
    remote("http", workdir, queries, args.seconds, args.clients)
    remote("mcp", workdir, queries, args.seconds, args.clients)
    command = " ".join(["python", "benchmarks/share_latency.py", *sys.argv[1:]])
    print(f"reproduce: nice -n 5 {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
