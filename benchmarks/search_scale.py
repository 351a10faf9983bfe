"""Scale of the memory index on a synthetic workspace (default 10,000 files, ~100k chunks).

Measures: full index time, index size, warm p50/p95 latency of the `memory_search` tool, the raw
kernels on the same data in the same run (numpy top-k over the same vectors, tantivy BM25 alone)
and the ratios memory_search p50 / numpy top-k p50 (target <= 3x) and BM25 p50 / numpy p50, the
time until an edit to one file is searchable (direct sync and through the file watcher) with the
number of chunks re-embedded, and the cost of one append to a long transcript.

The bulk run uses a fast hashing embedder (384-d): the local e5 model embeds ~10-30 chunks/s on
2 cores, so its throughput is measured on a sample and the full-corpus time extrapolated.

    PYTHONPATH=. python benchmarks/search_scale.py [--files 10000] [--sections 10] [--queries 200]
        [--local-sample 200] [--transcript-turns 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import time
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from remecli.config.search import SearchSettings  # noqa: E402
from remecli.search import LocalE5Embedder, MemoryIndex  # noqa: E402
from remecli.search.embedders import normalize_rows  # noqa: E402
from remecli.tools.registry import memory_search_tool  # noqa: E402


class HashingEmbedder:
    """Fast deterministic stand-in for a real model: hashed bag of words, 384-d."""

    model_id = "bench/hashing"
    dimensions = 384

    def __init__(self) -> None:
        self.documents_embedded = 0

    def _rows(self, texts: list[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                h = zlib.crc32(word.encode())
                matrix[row, h % self.dimensions] += 1.0 if h & 0x10000 else -1.0
        return normalize_rows(matrix)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.documents_embedded += len(texts)
        return self._rows(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._rows([text])[0]


def make_vocabulary(rng: random.Random, size: int = 5000) -> list[str]:
    """Pronounceable pseudo-words, a few frequent and many rare (Zipf-like use below)."""
    syllables = ["ka", "lo", "mi", "ter", "san", "vo", "ri", "pel", "dun", "ax", "zi", "mor"]
    return list(
        dict.fromkeys("".join(rng.choices(syllables, k=rng.randint(2, 4))) for _ in range(size))
    )


def write_workspace(root: Path, files: int, sections: int, seed: int = 7) -> list[str]:
    """Daily-note-like Markdown files; returns the vocabulary used."""
    rng = random.Random(seed)
    vocab = make_vocabulary(rng)
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    for n in range(files):
        lines = [f"# Note {n}", ""]
        for s in range(sections):
            lines.append(f"## Topic {s}")
            for _ in range(rng.randint(2, 4)):
                words = rng.choices(vocab, weights=weights, k=rng.randint(10, 20))
                lines.append(" ".join(words).capitalize() + ".")
            lines.append("")
        path = root / "memory" / f"{2000 + n // 365}" / f"note-{n:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines), encoding="utf-8")
    return vocab


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def time_calls(fn, queries: list[str]) -> list[float]:
    times = []
    for query in queries:
        start = time.perf_counter()
        fn(query)
        times.append((time.perf_counter() - start) * 1000)
    return times


async def edit_latency(index: MemoryIndex, target: Path, word: str, watch: bool) -> float:
    """Seconds from writing `word` into `target` until a search finds it."""
    if watch:
        index.start_watching(debounce_ms=200)
        # the watcher gives no "ready" signal: wait until a warm-up file is picked up
        warmup = index.working_dir / "memory" / "warmup.md"
        await asyncio.sleep(0.5)
        ready = f"watcherready{word}"
        warmup.write_text(f"# Warm-up\n{ready}\n", encoding="utf-8")
        for _ in range(1200):
            if any(ready in r.snippet for r in await index.search(ready, 5, 0.0)):
                break
            await asyncio.sleep(0.1)
    start = time.perf_counter()
    target.write_text(target.read_text(encoding="utf-8") + f"\n## Edit\nThe {word} arrived.\n")
    if not watch:
        await index.sync()
    while not any(word in r.snippet for r in await index.search(word, 10, 0.0)):
        await asyncio.sleep(0.02)
        if time.perf_counter() - start > 120:
            break
    elapsed = time.perf_counter() - start
    if watch:
        await index.stop()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--sections", type=int, default=10, help="sections (≈ chunks) per file")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--local-sample", type=int, default=200, help="chunks to time the e5 model on (0: skip)"
    )
    parser.add_argument("--transcript-turns", type=int, default=5000)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/remecli-scale-bench"))
    parser.add_argument(
        "--reuse", action="store_true", help="keep a workspace and index from an earlier run"
    )
    args = parser.parse_args()
    if args.reuse and (args.workdir / "memory").is_dir():
        vocab = make_vocabulary(random.Random(7))
        print(f"workspace: reused {args.workdir} (index synced incrementally)")
    else:
        shutil.rmtree(args.workdir, ignore_errors=True)
        args.workdir.mkdir(parents=True)
        t0 = time.perf_counter()
        vocab = write_workspace(args.workdir, args.files, args.sections)
        print(f"workspace: {args.files} files written in {time.perf_counter() - t0:.1f} s")

    settings = SearchSettings()
    embedder = HashingEmbedder()
    index = MemoryIndex.open(args.workdir, settings, embedder=embedder)
    t0 = time.perf_counter()
    report = index.sync_blocking()
    index_seconds = time.perf_counter() - t0
    stats = index.stats()
    index.close()  # checkpoints the SQLite write-ahead logs before measuring the size
    size = folder_size(index.folder)
    index = MemoryIndex.open(args.workdir, settings, embedder=embedder)
    print(
        f"full index: {index_seconds:.1f} s for {stats['files']} files / {stats['chunks']} chunks "
        f"({report.chunks_embedded} embedded); index size {size / 1e6:.1f} MB"
    )

    rng = random.Random(11)
    queries = [" ".join(rng.sample(vocab[:2000], 3)) for _ in range(args.queries)]
    tool = memory_search_tool(index)
    for query in queries[:20]:  # warm up caches and the searcher
        asyncio.run(tool.call(query=query, max_results=5, min_score=0.0))
    ids, matrix = index.store.all_vectors()
    query_vectors = {q: embedder.embed_query(q) for q in queries}
    limit = 5 * settings.candidate_multiplier

    def numpy_topk(query: str) -> None:
        scores = matrix @ query_vectors[query]
        top = np.argpartition(-scores, limit)[:limit]
        top[np.argsort(-scores[top])]

    def bm25(query: str) -> None:
        index.keyword.search(query, limit)

    async def tool_calls() -> list[float]:
        times = []
        for query in queries:
            start = time.perf_counter()
            await tool.call(query=query, max_results=5, min_score=0.0)
            times.append((time.perf_counter() - start) * 1000)
        return times

    tool_ms = asyncio.run(tool_calls())
    numpy_ms = time_calls(numpy_topk, queries)
    bm25_ms = time_calls(bm25, queries)
    embed_ms = time_calls(embedder.embed_query, queries)
    kernel_p50 = percentile(numpy_ms, 50) + percentile(bm25_ms, 50) + percentile(embed_ms, 50)
    print(
        f"memory_search (tool, warm, {len(queries)} queries): p50 {percentile(tool_ms, 50):.1f} ms, "
        f"p95 {percentile(tool_ms, 95):.1f} ms"
    )
    print(
        f"raw kernels: numpy top-{limit} p50 {percentile(numpy_ms, 50):.1f} ms, "
        f"BM25 alone p50 {percentile(bm25_ms, 50):.1f} ms (p95 {percentile(bm25_ms, 95):.1f}), "
        f"query embedding p50 {percentile(embed_ms, 50):.2f} ms"
    )
    numpy_p50 = percentile(numpy_ms, 50)
    print(
        f"ratio memory_search p50 / numpy top-k p50: {percentile(tool_ms, 50) / numpy_p50:.2f}x "
        f"(target <= 3x); BM25 p50 / numpy p50: {percentile(bm25_ms, 50) / numpy_p50:.4f}x; "
        f"memory_search p50 / sum of kernel p50s: {percentile(tool_ms, 50) / kernel_p50:.2f}x"
    )

    target = next(iter(index.memory_files().values()))
    before = embedder.documents_embedded
    nonce = int(time.time()) % 100_000  # words no earlier run wrote
    direct = asyncio.run(edit_latency(index, target, f"zorblequark{nonce}", watch=False))
    direct_embedded = embedder.documents_embedded - before
    before = embedder.documents_embedded
    watched = asyncio.run(edit_latency(index, target, f"quibblefrost{nonce}", watch=True))
    watched_embedded = embedder.documents_embedded - before
    print(
        f"edit → searchable: {direct:.2f} s via sync() ({direct_embedded} chunk(s) re-embedded); "
        f"{watched:.2f} s via the watcher, 200 ms debounce ({watched_embedded} re-embedded)"
    )
    append_ms, append_cpu = transcript_append_cost(index, args.transcript_turns)
    print(
        f"transcript of {args.transcript_turns} turns: one appended message → searchable, "
        f"sync p50 {percentile(append_ms, 50):.1f} ms wall (p95 {percentile(append_ms, 95):.1f}), "
        f"{percentile(append_cpu, 50):.1f} ms CPU, over {len(append_ms)} appends "
        "(wall time is mostly the keyword commit's fsync)"
    )
    index.close()
    if args.local_sample <= 0:
        print(reproduce(args))
        return 0

    sample = [c.text for c in index_sample(args.workdir, args.local_sample)]
    local = LocalE5Embedder()
    local.embed_documents(sample[:4])
    t0 = time.perf_counter()
    local.embed_documents(sample)
    rate = len(sample) / (time.perf_counter() - t0)
    print(
        f"local e5 model: {rate:.1f} chunks/s on this machine → full corpus of "
        f"{stats['chunks']} chunks ≈ {stats['chunks'] / rate / 60:.0f} min (cached afterwards)"
    )
    print(reproduce(args))
    return 0


def reproduce(args: argparse.Namespace) -> str:
    """The command line that reproduces this run."""
    return (
        "reproduce: PYTHONPATH=. python benchmarks/search_scale.py "
        f"--files {args.files} --sections {args.sections} --queries {args.queries} "
        f"--local-sample {args.local_sample} --transcript-turns {args.transcript_turns}"
        + (" --reuse" if args.reuse else "")
    )


def transcript_append_cost(
    index: MemoryIndex, turns: int, appends: int = 30
) -> tuple[list[float], list[float]]:
    """Wall and CPU ms of `sync(paths=…)` after appending one message to a long transcript."""
    path = index.working_dir / "sessions" / "bench.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)

    def record(k: int) -> str:
        msg = {"name": "user", "role": "user", "id": f"m{k}"}
        msg["content"] = [{"type": "text", "text": f"message {k} about topic{k % 97} and more"}]
        return json.dumps({"t": "msg", "at": "2025-01-01T10:00:00+00:00", "msg": msg})

    path.write_text("".join(record(k) + "\n" for k in range(turns)), encoding="utf-8")
    index.sync_blocking(paths=["sessions/bench.jsonl"])
    times, cpu = [], []
    for k in range(turns, turns + appends):
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(record(k) + "\n")
        start, start_cpu = time.perf_counter(), time.process_time()
        index.sync_blocking(paths=["sessions/bench.jsonl"])
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    assert index.search_blocking(f"message {turns + appends - 1}", 1, 0.0, source="transcripts")
    return times, cpu


def index_sample(workdir: Path, count: int):
    """The first `count` chunks of the workspace (for timing the local model)."""
    from remecli.search.chunker import MarkdownChunker

    chunker = MarkdownChunker()
    chunks = []
    for path in sorted((workdir / "memory").rglob("*.md")):
        chunks += chunker.chunk(path.name, path.read_text(encoding="utf-8"))
        if len(chunks) >= count:
            break
    return chunks[:count]


if __name__ == "__main__":
    raise SystemExit(main())
