"""Scale of the memory index on a synthetic workspace (default 10,000 files, ~100k chunks).

Measures: full index time, index size, warm p50/p95 latency of the `memory_search` tool, the raw
kernels on the same data in the same run (numpy top-k over the same vectors, tantivy BM25 alone)
and the ratios memory_search p50 / numpy top-k p50 (target <= 3x) and BM25 p50 / numpy p50, the
time until an edit to one file is searchable (direct sync and through the file watcher) with the
number of chunks re-embedded, and the cost of one append to a long transcript.

The bulk run uses a fast hashing embedder (384-d, `--embedder hashing`, the default): the local
e5 model embeds ~10-30 chunks/s on 2 cores, so its throughput is measured on a sample and the
full-corpus time extrapolated; `--embedder local` runs everything on the real model (use a small
`--files`). Vector scores differ between the two, the cost of a search hardly does (same
dimensions, same scan).

Fairness: the numpy baseline is timed twice, limited to one BLAS thread (what faiss is pinned to
in the search) and with all of them; warm-up queries are not among the timed ones; each query is
timed on every path in turn (interleaved), so load on the machine hits all paths alike. The
workspace goes to a fresh temporary folder unless `--workdir` is given.

    PYTHONPATH=. python benchmarks/search_scale.py [--files 10000] [--sections 10] [--queries 200]
        [--local-sample 200] [--transcript-turns 5000] [--embedder hashing|local]
        [--workdir DIR [--reuse]]
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import json
import random
import shutil
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from remecli.config.search import SearchSettings  # noqa: E402
from remecli.search import LocalE5Embedder, MemoryIndex, SearchRequest  # noqa: E402
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
            if any(
                ready in r.snippet
                for r in await index.search(
                    SearchRequest(query=ready, max_results=5, min_score=0.0)
                )
            ):
                break
            await asyncio.sleep(0.1)
    start = time.perf_counter()
    target.write_text(target.read_text(encoding="utf-8") + f"\n## Edit\nThe {word} arrived.\n")
    if not watch:
        await index.sync()
    while not any(
        word in r.snippet
        for r in await index.search(SearchRequest(query=word, max_results=10, min_score=0.0))
    ):
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
    parser.add_argument("--workdir", type=Path, help="default: a fresh temporary folder")
    parser.add_argument(
        "--reuse", action="store_true", help="keep a workspace and index from an earlier run"
    )
    parser.add_argument("--embedder", choices=["hashing", "local"], default="hashing")
    args = parser.parse_args()
    if args.workdir is None:
        if args.reuse:
            parser.error("--reuse needs the --workdir of the earlier run")
        args.workdir = Path(tempfile.mkdtemp(prefix="remecli-scale-"))
        atexit.register(shutil.rmtree, args.workdir, ignore_errors=True)
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
    embedder: HashingEmbedder | LocalE5Embedder = (
        HashingEmbedder() if args.embedder == "hashing" else LocalE5Embedder()
    )
    print(
        "embedder: "
        + (
            "hashing stand-in (bag of words, 384-d; not the real model: --embedder local)"
            if args.embedder == "hashing"
            else "the local e5 model (the default's)"
        )
    )
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
    warm_rng = random.Random(12)  # warm-up queries are never among the timed ones
    warmup = [" ".join(warm_rng.sample(vocab[2000:], 3)) for _ in range(20)]
    tool = memory_search_tool(index)
    for query in warmup:  # warm up caches and the searcher
        asyncio.run(tool.function(query=query, max_results=5, min_score=0.0))
    timings = asyncio.run(interleaved_timings(index, tool, embedder, queries, settings))
    report_search(timings, len(queries))
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


async def interleaved_timings(
    index: MemoryIndex,
    tool: Any,
    embedder: Any,
    queries: list[str],
    settings: SearchSettings,
) -> dict[str, list[float]]:
    """ms per query of each path, the paths taken in turn for every query: the tool (as the
    agent calls it: a worker thread), numpy top-k on 1 BLAS thread and on all of them, BM25
    alone, the query embedding alone."""
    ids, matrix = index.store.all_vectors()
    assert matrix is not None, "no vectors: nothing to compare against"
    limit = 5 * settings.candidate_multiplier
    query_vectors = {q: embedder.embed_query(q) for q in queries}

    def numpy_topk(query: str) -> None:
        scores = matrix @ query_vectors[query]
        top = np.argpartition(-scores, limit)[:limit]
        top[np.argsort(-scores[top])]

    def timed(fn: Any, query: str) -> float:
        start = time.perf_counter()
        fn(query)
        return (time.perf_counter() - start) * 1000

    limits = blas_limits()
    times: dict[str, list[float]] = {k: [] for k in ("tool", "numpy1", "numpyN", "bm25", "embed")}
    for query in queries:
        start = time.perf_counter()
        await tool.function(query=query, max_results=5, min_score=0.0)
        times["tool"].append((time.perf_counter() - start) * 1000)
        with limits(1):
            times["numpy1"].append(timed(numpy_topk, query))
        times["numpyN"].append(timed(numpy_topk, query))
        times["bm25"].append(timed(lambda q: index.keyword.search(q, limit), query))
        times["embed"].append(timed(embedder.embed_query, query))
    return times


def blas_limits() -> Any:
    """A context manager factory limiting numpy's BLAS threads (threadpoolctl), or a no-op."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with the test dependencies
        print("note: threadpoolctl missing, the 1-thread numpy baseline uses all threads")
        return lambda _n: contextlib.nullcontext()
    return lambda n: threadpool_limits(limits=n, user_api="blas")


def report_search(times: dict[str, list[float]], count: int) -> None:
    """Print the p50s and the ratios against both numpy baselines."""
    p50 = {k: percentile(v, 50) for k, v in times.items()}
    print(
        f"memory_search (tool, warm, {count} queries, none of them a warm-up query): "
        f"p50 {p50['tool']:.1f} ms, p95 {percentile(times['tool'], 95):.1f} ms"
    )
    print(
        f"raw kernels (same queries, interleaved): numpy top-k p50 {p50['numpy1']:.1f} ms on 1 "
        f"BLAS thread, {p50['numpyN']:.1f} ms on all threads; BM25 alone p50 {p50['bm25']:.1f} ms "
        f"(p95 {percentile(times['bm25'], 95):.1f}); query embedding p50 {p50['embed']:.2f} ms"
    )
    print(
        f"ratio memory_search p50 / numpy top-k p50: {p50['tool'] / p50['numpy1']:.2f}x against "
        f"1 thread (faiss is pinned to 1), {p50['tool'] / p50['numpyN']:.2f}x against all threads "
        "(target <= 3x)"
    )
    kernels = p50["numpy1"] + p50["bm25"] + p50["embed"]
    print(f"memory_search p50 / sum of kernel p50s (1 thread): {p50['tool'] / kernels:.2f}x")


def reproduce(args: argparse.Namespace) -> str:
    """The command line that reproduces this run."""
    return (
        "reproduce: PYTHONPATH=. python benchmarks/search_scale.py "
        f"--files {args.files} --sections {args.sections} --queries {args.queries} "
        f"--local-sample {args.local_sample} --transcript-turns {args.transcript_turns} "
        f"--embedder {args.embedder}" + (f" --workdir {args.workdir} --reuse" if args.reuse else "")
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
    assert index.search_blocking(
        SearchRequest(
            query=f"message {turns + appends - 1}",
            max_results=1,
            min_score=0.0,
            source="transcripts",
        )
    )
    return times, cpu


def index_sample(workdir: Path, count: int):
    """The first `count` chunks of the workspace (for timing the local model)."""
    from remecli.search.chunker import MarkdownChunker

    defaults = SearchSettings()
    chunker = MarkdownChunker(defaults.chunk_tokens, defaults.chunk_overlap)
    chunks = []
    for path in sorted((workdir / "memory").rglob("*.md")):
        chunks += chunker.chunk(path.name, path.read_text(encoding="utf-8"))
        if len(chunks) >= count:
            break
    return chunks[:count]


if __name__ == "__main__":
    raise SystemExit(main())
