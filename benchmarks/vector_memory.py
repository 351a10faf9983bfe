"""Vector memory at scale: add / get / list / search p50 at 10k and 100k memories in ONE target,
per backend (local SQLite + numpy; PostgreSQL + pgvector started here from the pgserver
wheel, over its unix socket; embedded Chroma with `--backends …,chroma`), all in one run.

Embeddings come from a cheap deterministic embedder (hashed unit vectors, 384-d like the local
model) so the figures measure the stores, not a model; the keyword side is on for `search`
(the default) and measured alone as `search (vector only)`.

    python benchmarks/vector_memory.py                       # 10k and 100k, both backends
    python benchmarks/vector_memory.py --sizes 10000 --backends local --ops 50
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from remecli.vector import MemoryNode, ReMe  # noqa: E402
from remecli.vector.stores import make_store  # noqa: E402

DIMS = 384
WORDS = [f"w{k}" for k in range(3000)] + [
    "deploy",
    "release",
    "tea",
    "python",
    "tabs",
    "vim",
    "berlin",
]


class HashEmbedder:
    """Deterministic unit vectors seeded by the text's hash (no model)."""

    model_id = "bench/hash-384"
    dimensions = DIMS

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.embed_query(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        vector = np.random.default_rng(seed).standard_normal(DIMS).astype(np.float32)
        return vector / np.linalg.norm(vector)


def sentence(rng: np.random.Generator) -> str:
    return " ".join(WORDS[i] for i in rng.integers(0, len(WORDS), 12))


def bulk_load(store_config: dict, folder: Path, count: int) -> float:
    """Fill one target with `count` memories through the store contract; seconds taken."""
    rng = np.random.default_rng(7)
    store = make_store(store_config, folder, DIMS, HashEmbedder.model_id)
    started = time.perf_counter()
    for start in range(0, count, 1000):
        size = min(1000, count - start)
        nodes = [
            MemoryNode(
                "personal",
                "alice",
                f"{start + k} {sentence(rng)}",
                time_created=f"2026-01-{1 + (start + k) % 28:02d} 10:00:00",
                metadata={"rank": int(rng.integers(0, 1000))},
            )
            for k in range(size)
        ]
        vectors = rng.standard_normal((size, DIMS)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.add(nodes, vectors)
    seconds = time.perf_counter() - started
    store.close()
    return seconds


async def timed(calls: int, make_call) -> float:
    """p50 in milliseconds of `calls` awaited calls."""
    samples = []
    for k in range(calls):
        started = time.perf_counter()
        await make_call(k)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


async def measure(store_config: dict, folder: Path, ops: int) -> dict[str, float]:
    reme = ReMe(
        working_dir=folder, default_vector_store_config=store_config, embedder=HashEmbedder()
    )
    started = time.perf_counter()
    await reme.start()
    figures = {"open (s)": time.perf_counter() - started}
    rng = np.random.default_rng(11)
    added: list[str] = []

    async def add(k: int) -> None:
        node = await reme.add_memory(memory_content=f"new {k} {sentence(rng)}", user_name="alice")
        added.append(node.memory_id)

    figures["add"] = await timed(ops, add)
    figures["get"] = await timed(ops, lambda k: reme.get_memory(added[k % len(added)]))
    figures["list (sort, limit 10)"] = await timed(
        ops,
        lambda k: reme.list_memory(
            user_name="alice", limit=10, sort_key="time_created", reverse=True
        ),
    )
    figures["list (range filter)"] = await timed(
        ops, lambda k: reme.list_memory(user_name="alice", filters={"rank": [k, k + 2]}, limit=10)
    )
    figures["search (hybrid)"] = await timed(
        ops, lambda k: reme.retrieve_memory(f"{WORDS[k]} deploy", user_name="alice", top_k=10)
    )
    figures["search (vector only)"] = await timed(
        ops,
        lambda k: reme.retrieve_memory(
            f"{WORDS[k]} tea", user_name="alice", top_k=10, keyword=False
        ),
    )
    await reme.close()
    return figures


def pg_server(root: Path):
    import pgserver

    root.chmod(0o755)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pgserver.get_server(root / "pgdata", cleanup_mode="stop")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--backends", default="local,pgvector")
    parser.add_argument("--ops", type=int, default=100, help="calls per operation")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    backends = args.backends.split(",")
    root = Path(tempfile.mkdtemp(prefix="remecli-vector-bench-"))
    server = pg_server(root) if "pgvector" in backends else None
    rows = []
    try:
        for backend in backends:
            for size in sizes:
                folder = root / f"{backend}-{size}"
                config: dict = {"backend": backend}
                if backend == "pgvector":
                    assert server is not None
                    config.update(dsn=server.get_uri(), table=f"bench_{size}", hnsw=False)
                load = bulk_load(config, folder, size)
                build = 0.0
                if backend == "pgvector":  # load first, then build the HNSW index once
                    started = time.perf_counter()
                    config["hnsw"] = True
                    make_store(config, folder, DIMS).close()
                    build = time.perf_counter() - started
                figures = asyncio.run(measure(config, folder, args.ops))
                rows.append((backend, size, load, build, figures))
                print(
                    f"{backend} {size}: load {load:.1f}s index {build:.1f}s "
                    + " ".join(f"{k}={v:.2f}" for k, v in figures.items()),
                    flush=True,
                )
    finally:
        if server is not None:
            server.cleanup()
        shutil.rmtree(root, ignore_errors=True)
    print()
    names = list(rows[0][4])
    print("| backend | memories in the target | bulk load | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for backend, size, load, build, figures in rows:
        load_text = f"{size / load:,.0f}/s" + (f" + HNSW {build:.0f} s" if build else "")
        cells = [
            f"{figures[n]:.2f} s" if n.endswith("(s)") else f"{figures[n]:.1f} ms" for n in names
        ]
        print(f"| {backend} | {size:,} | {load_text} | " + " | ".join(cells) + " |")
    print("\np50 over", args.ops, "calls each; reproduce with:")
    print("  python benchmarks/vector_memory.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
