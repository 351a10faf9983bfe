"""Vector memory at scale, per backend: bulk insert rate (`ReMe.add_memories`), add p50,
retrieve p50 / p95 (vector only and hybrid), and recall@10 of the engine's nearest-neighbour
search against an exact search over the same vectors, at 10k and 100k memories in one target.

Every backend in the store registry (`remecli.vector.stores.BACKENDS`) that can run here is
measured, so one added later joins: local (SQLite + numpy, exact), pgvector (a PostgreSQL 16 +
pgvector server started here from the pgserver wheel, HNSW m=16 ef_construction=64), chroma
(embedded, HNSW). A backend whose engine is not available is listed as skipped with the reason.

The vectors are precomputed (clustered unit vectors: 384-d by default, points around 200
centres) and the "embedding model" is a table look-up, so the figures measure the stores, not a
model; the texts carry cluster words so the keyword half of hybrid retrieval finds something.

    nice -n 10 python benchmarks/vector_memory.py                       # 10k and 100k, all
    nice -n 10 python benchmarks/vector_memory.py --sizes 10000 --backends local,pgvector
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from remecli.vector import ReMe  # noqa: E402
from remecli.vector.filters import compile_filters  # noqa: E402
from remecli.vector.stores import BACKENDS  # noqa: E402

CENTRES = 200
SPREAD = 0.35  # noise per dimension, relative to the centre's 1/sqrt(dims) scale
TOPIC_WORDS = 4


class LookupEmbedder:
    """The "model": every text's vector was computed up front; embedding is a dict look-up."""

    model_id = "bench/precomputed"

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self.table: dict[str, np.ndarray] = {}

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.table[t] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self.table[text]


class Corpus:
    """Clustered unit vectors with texts: memory k lies near centre k % CENTRES."""

    def __init__(self, count: int, dims: int, queries: int, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        self.centres = _unit(rng.standard_normal((CENTRES, dims)).astype(np.float32))
        self.vectors = self._around(rng, np.arange(count) % CENTRES)
        self.texts = [f"memory {k} {self.topic(k % CENTRES)} note" for k in range(count)]
        self.query_centres = rng.integers(0, CENTRES, queries)
        self.query_vectors = self._around(rng, self.query_centres)
        self.query_texts = [
            f"query {q} {self.topic(int(c))}" for q, c in enumerate(self.query_centres)
        ]

    def _around(self, rng: np.random.Generator, centres: np.ndarray) -> np.ndarray:
        dims = self.centres.shape[1]
        noise = rng.standard_normal((len(centres), dims)).astype(np.float32)
        return _unit(self.centres[centres] + noise * (SPREAD * 3 / np.sqrt(dims)))

    @staticmethod
    def topic(centre: int) -> str:
        return " ".join(f"topic{centre}w{w}" for w in range(TOPIC_WORDS))


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def percentile(samples: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(samples), q))


async def timed(calls: int, make_call: Callable[[int], Awaitable[Any]]) -> list[float]:
    """Milliseconds of each of `calls` awaited calls."""
    samples = []
    for k in range(calls):
        started = time.perf_counter()
        await make_call(k)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def store_config(backend: str, root: Path, size: int, servers: dict[str, Any]) -> dict[str, Any]:
    """The store config of one backend for one run (a fresh table / folder)."""
    if backend == "pgvector":
        return {"backend": "pgvector", "dsn": servers["pgvector"], "table": f"bench_{size}"}
    if backend == "local":
        return {"backend": "local"}
    return {"backend": backend, "path": str(root / f"{backend}-{size}-data")}


async def measure(
    backend: str, config: dict[str, Any], folder: Path, corpus: Corpus, ops: int
) -> dict[str, float]:
    embedder = LookupEmbedder(corpus.vectors.shape[1])
    embedder.table.update(zip(corpus.texts, corpus.vectors, strict=True))
    embedder.table.update(zip(corpus.query_texts, corpus.query_vectors, strict=True))
    reme = ReMe(working_dir=folder, default_vector_store_config=config, embedder=embedder)
    await reme.start()
    figures: dict[str, float] = {}
    try:
        records = [{"content": text} for text in corpus.texts]
        started = time.perf_counter()
        stored = await reme.add_memories(records, user_name="alice", batch_size=1024)
        figures["bulk insert (memories/s)"] = len(records) / (time.perf_counter() - started)
        figures["recall@10"] = await recall_at_10(reme, corpus, [n.memory_id for n in stored])
        rng = np.random.default_rng(11)
        extra = _unit(rng.standard_normal((ops, corpus.vectors.shape[1])).astype(np.float32))
        embedder.table.update({f"new {k}": extra[k] for k in range(ops)})
        adds = await timed(
            ops, lambda k: reme.add_memory(memory_content=f"new {k}", user_name="alice")
        )
        figures["add p50 (ms)"] = statistics.median(adds)
        queries = len(corpus.query_texts)
        for name, keyword in (("vector", False), ("hybrid", True)):
            samples = await timed(
                ops,
                lambda k, keyword=keyword: reme.retrieve(
                    corpus.query_texts[k % queries], user_name="alice", top_k=10, keyword=keyword
                ),
            )
            figures[f"retrieve {name} p50 (ms)"] = percentile(samples, 50)
            figures[f"retrieve {name} p95 (ms)"] = percentile(samples, 95)
    finally:
        await reme.close()
    return figures


async def recall_at_10(reme: ReMe, corpus: Corpus, ids: list[str]) -> float:
    """Mean share of the exact 10 nearest (inner product over the same vectors) that the
    engine's vector search returns."""
    conditions = compile_filters({"memory_type": "personal", "memory_target": "alice"})
    exact = np.argsort(-(corpus.query_vectors @ corpus.vectors.T), axis=1)[:, :10]
    shares = []
    for query, best in zip(corpus.query_vectors, exact, strict=True):
        found = await asyncio.to_thread(reme.store.vector_search, query, conditions, 10)
        wanted = {ids[k] for k in best}
        shares.append(len(wanted & {n.memory_id for n in found}) / 10)
    return float(np.mean(shares))


def start_servers(backends: list[str], root: Path) -> tuple[dict[str, Any], list[Any]]:
    """A PostgreSQL + pgvector server (pgserver) when pgvector is measured."""
    servers: dict[str, Any] = {}
    handles: list[Any] = []
    if "pgvector" in backends:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import pgserver

                root.chmod(0o755)
                server = pgserver.get_server(root / "pgdata", cleanup_mode="stop")
        except Exception as exc:  # noqa: BLE001 - reported as a skipped backend
            servers["pgvector"] = exc
        else:
            handles.append(server)
            servers["pgvector"] = server.get_uri()
    return servers, handles


def run(args: argparse.Namespace) -> list[tuple[str, int, dict[str, float] | str]]:
    sizes = [int(s) for s in args.sizes.split(",")]
    backends = args.backends.split(",") if args.backends else list(BACKENDS)
    root = Path(tempfile.mkdtemp(prefix="remecli-vector-bench-"))
    servers, handles = start_servers(backends, root)
    rows: list[tuple[str, int, dict[str, float] | str]] = []
    try:
        for size in sizes:
            corpus = Corpus(size, args.dims, args.queries)
            for backend in backends:
                if isinstance(servers.get(backend), Exception):
                    rows.append((backend, size, f"skipped: {servers[backend]}"))
                    continue
                folder = root / f"{backend}-{size}"
                config = store_config(backend, root, size, servers)
                try:
                    figures: dict[str, float] | str = asyncio.run(
                        measure(backend, config, folder, corpus, args.ops)
                    )
                except Exception as exc:  # noqa: BLE001 - an engine that cannot run here
                    figures = f"skipped: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
                rows.append((backend, size, figures))
                print(backend, size, figures, flush=True)
    finally:
        for server in handles:
            server.cleanup()
        shutil.rmtree(root, ignore_errors=True)
    return rows


def table(rows: list[tuple[str, int, dict[str, float] | str]]) -> str:
    measured = [r for r in rows if isinstance(r[2], dict)]
    if not measured:
        return "(nothing measured)"
    names = list(measured[0][2])  # type: ignore[arg-type]
    lines = [
        "| backend | memories | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for backend, size, figures in rows:
        if isinstance(figures, str):
            lines.append(f"| {backend} | {size:,} | {figures} |")
            continue
        cells = [
            f"{figures[n]:,.0f}"
            if "/s" in n
            else f"{figures[n]:.3f}"
            if "recall" in n
            else f"{figures[n]:.1f}"
            for n in names
        ]
        lines.append(f"| {backend} | {size:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--backends", default="", help="default: every registered backend")
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--ops", type=int, default=100, help="calls per latency figure")
    parser.add_argument("--queries", type=int, default=100, help="queries for recall@10")
    args = parser.parse_args()
    rows = run(args)
    print()
    print(table(rows))
    print(
        f"\n{args.dims}-d precomputed vectors ({CENTRES} clusters; the embedder is a look-up, "
        f"so no model time is included); p50/p95 over {args.ops} calls; recall@10 over "
        f"{args.queries} queries against exact inner-product search; bulk insert includes "
        "pgvector's HNSW build after the load. Reproduce with:"
    )
    print("  nice -n 10 python benchmarks/vector_memory.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
