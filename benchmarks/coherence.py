"""Coherence across processes: how soon a card written through one live process is found by
every other one on the same memory (issue 22.2: p95 within 2 s with three writers).

Starts `--servers` `remecli serve` processes (3) on one fresh working dir (the file watcher on;
keyword search only, or with `--defaults` the default settings: the local embedder on) and waits
until each has opened its index. One writer thread per server writes `--writes` topic cards
through its server's `memory_write_card`; after each write returns, every server (the writer's
own too, with `--defaults`; else the others) is polled with `memory_search` (each by its own
thread, at once) until the card's unique word is found. The delay (write answered → found) of
every (write, server) pair is collected; p50, p95 and max are printed, overall and per server
(own: the writer's own process, other: another one), and the slowest first card (each server's
first write: before the fix its first sync loaded the token encoding while holding the writer
lock, 10–40 s under load). `--load N` runs N busy-loop processes meanwhile (a loaded machine).

Reproduce:  nice -n 10 python benchmarks/coherence.py [--writes 10] [--servers 2 --defaults]
            [--load 6] [--log FILE]   (--log: the servers' log, and FILE.events with the unix
            time of each write and find, to line the two up)
"""

from __future__ import annotations

import argparse
import contextlib
import math
import multiprocessing
import os
import random
import shutil
import statistics
import string
import tempfile
import threading
import time
from pathlib import Path

import httpx
from serve_process import served, wait_for_index

SERVE = ["serve", "--port", "0"]
SETTINGS = [
    "llm.api_key=sk-unused",
    "llm.base_url=http://127.0.0.1:9/v1",
    "search.watch=true",
    "memory.dream.auto=false",
]
KEYWORD_ONLY = "search.embedding.backend=none"
GIVE_UP_SECONDS = 60.0
POLL_SECONDS = 0.1  # each poll is a search: more often only loads the servers


def found(url: str, token: str, word: str) -> bool:
    answer = httpx.post(
        f"{url}/api/memory_search",
        json={"query": word, "max_results": 3},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    answer.raise_for_status()
    return any(word in hit["snippet"] for hit in answer.json()["results"])


EVENTS: list[str] = []  # "<unix time> written|found <word> ...": with --log, beside the log

# (the card's number in its writer's series, the server searched, its writer's own?, delay)
Delays = list[tuple[int, int, bool, float]]


def busy() -> None:
    """A CPU-bound process: one of `--load N`."""
    while True:
        pass


def writer(me: int, urls: list[str], token: str, writes: int, delays: Delays, own: bool) -> None:
    """Write `writes` cards through server `me`; time how soon each server (with `own`, `me`
    too) finds each."""
    for n in range(writes):
        word = "zq" + "".join(random.choices(string.ascii_lowercase, k=10))
        answer = httpx.post(
            f"{urls[me]}/api/memory_write_card",
            json={
                "name": f"writer {me} card {n}",
                "description": f"coherence probe {n} of writer {me}",
                "content": f"The probe word is {word}.",
                "tags": [],
            },
            headers={"Authorization": f"Bearer {token}"},
            timeout=60,
        )
        answer.raise_for_status()
        written = time.monotonic()
        EVENTS.append(f"{time.time():.3f} written {word} through server {me}")
        pollers = [
            threading.Thread(
                target=poll, args=(url, token, word, written, (n, other, other == me), delays)
            )
            for other, url in enumerate(urls)
            if own or other != me
        ]
        for poller in pollers:
            poller.start()
        for poller in pollers:
            poller.join()


def poll(
    url: str, token: str, word: str, written: float, which: tuple[int, int, bool], delays: Delays
) -> None:
    """Search `url` until it finds `word`; record the delay since the write was answered (inf:
    not found within GIVE_UP_SECONDS, or the search failed). Each server is polled by its own
    thread, so one server's delay never includes the time spent waiting for another."""
    try:
        while not found(url, token, word):
            if time.monotonic() - written > GIVE_UP_SECONDS:
                print(f"{url} never found {word}")
                delays.append((*which, math.inf))
                return
            time.sleep(POLL_SECONDS)
    except httpx.HTTPError as exc:
        print(f"searching {url} for {word} failed: {exc!r}")
        delays.append((*which, math.inf))
        return
    delays.append((*which, time.monotonic() - written))
    EVENTS.append(
        f"{time.time():.3f} found {word} by server {which[1]} after {delays[-1][3]:.2f} s"
    )


def summary(seconds: list[float]) -> str:
    """p50, p95 and max of some delays."""
    seconds = sorted(seconds)
    p95 = seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))]
    return f"p50 {statistics.median(seconds):.2f} s   p95 {p95:.2f} s   max {seconds[-1]:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writes", type=int, default=10, help="cards per writer")
    parser.add_argument("--servers", type=int, default=3, help="serve processes, one writer each")
    parser.add_argument(
        "--defaults", action="store_true", help="default settings (the local embedder on)"
    )
    parser.add_argument("--load", type=int, default=0, help="busy-loop processes meanwhile")
    parser.add_argument(
        "--log",
        type=Path,
        help="copy the servers' remecli.log there, and the writes and finds (unix times) "
        "beside it (.events), to line them up",
    )
    args = parser.parse_args()
    settings = SETTINGS if args.defaults else [*SETTINGS, KEYWORD_ONLY]
    loads: list[multiprocessing.Process] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / ".reme"
        root.mkdir(mode=0o700)
        (root / "MEMORY.md").write_text("# MEMORY\n\n- The team ships on Fridays.\n")
        with contextlib.ExitStack() as servers:
            urls = [
                servers.enter_context(served(SERVE, root, settings))[1] for _ in range(args.servers)
            ]
            token = (root / "serve.token").read_text().strip()
            for url in urls:
                wait_for_index(url, token, GIVE_UP_SECONDS, POLL_SECONDS)
                found(url, token, "warm")  # the first search loads the local model, if any
            for _ in range(args.load):
                loads.append(multiprocessing.Process(target=busy, daemon=True))
                loads[-1].start()
            delays: Delays = []
            threads = [
                threading.Thread(
                    target=writer, args=(i, urls, token, args.writes, delays, args.defaults)
                )
                for i in range(args.servers)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            load = os.getloadavg()[0]
            for process in loads:
                process.terminate()
        rebuilt = "rebuilding" in (root / "logs" / "remecli.log").read_text()
        if args.log:
            shutil.copyfile(root / "logs" / "remecli.log", args.log)
            args.log.with_suffix(".events").write_text("\n".join(EVENTS) + "\n")
    first = max(delay for n, _, _, delay in delays if n == 0)
    what = "default settings (local embedder)" if args.defaults else "keyword search only"
    print(
        f"machine: {os.cpu_count()} cores, load average {load:.1f} ({args.load} busy loops); "
        f"{args.servers} serve processes, {what}, {args.servers} writers, {args.writes} cards each"
    )
    lost = sum(1 for *_, d in delays if d == math.inf)
    print(f"visibility delays: {len(delays)} (write answered → found), never found: {lost}")
    print(
        f"all     {summary([d for *_, d in delays])}   slowest first card {first:.2f} s   "
        f"index rebuilt: {'yes' if rebuilt else 'no'}"
    )
    for server in range(args.servers):
        for own in (True, False):
            mine = [d for _, s, o, d in delays if s == server and o == own]
            if mine:
                print(f"server {server} {'own  ' if own else 'other'} {summary(mine)}")
    options = f"--writes {args.writes} --servers {args.servers} --load {args.load}"
    print(
        f"reproduce: nice -n 10 python benchmarks/coherence.py {options}"
        + (" --defaults" if args.defaults else "")
    )


if __name__ == "__main__":
    main()
