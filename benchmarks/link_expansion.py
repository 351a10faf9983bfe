"""What link expansion adds to `memory_search` (issue 12: target ≤ 20 %), and the graph's cost.

Builds a synthetic working dir: `--files` day pages of `--sections` sections each (≈ chunks),
every note linking to a few others with wikilinks, plus digest nodes that link back. Then, in one
run on the same open runtime (keyword-only search, so the comparison is not drowned in embedding
noise): p50/p95 of `FileMemory.memory_search` with links (the default) and without, and the
ratio; the link graph's build time.

    python benchmarks/link_expansion.py [--files 10000] [--sections 10] [--queries 200]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from remecli.config.settings import Settings  # noqa: E402
from remecli.conversation.file_memory import FileMemory  # noqa: E402


def write_workspace(root: Path, files: int, sections: int, rng: random.Random) -> list[str]:
    words = [f"w{n}" for n in range(4000)]
    names = [f"memory/2025-{1 + n % 12:02d}-{1 + n % 28:02d}/note-{n}.md" for n in range(files)]
    for n, rel in enumerate(names):
        links = " ".join(f"[[{names[rng.randrange(files)]}]]" for _ in range(3))
        body = [
            f"---\nname: Note {n}\ndescription: synthetic note {n} about {words[n % 4000]}\n---"
        ]
        for s in range(sections):
            text = " ".join(rng.choice(words) for _ in range(60))
            body.append(f"## Section {s}\n\n{text}\n\nSee {links}.")
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n\n".join(body) + "\n", encoding="utf-8")
    for n in range(max(1, files // 20)):
        node = root / "digest" / "wiki" / f"topic-{n}.md"
        node.parent.mkdir(parents=True, exist_ok=True)
        node.write_text(
            f"---\nname: Topic {n}\ndescription: consolidated topic {n}\n---\n"
            f"About [[{names[rng.randrange(files)]}]].\n\n## Sources\n- [[{names[n]}]]\n",
            encoding="utf-8",
        )
    return words


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def timed(memory: FileMemory, queries: list[str], links: bool) -> list[float]:
    out = []
    for query in queries:
        start = time.perf_counter()
        await memory.memory_search(query, 10, 0.0, links=links)
        out.append((time.perf_counter() - start) * 1000)
    return out


async def run(args: argparse.Namespace) -> None:
    rng = random.Random(7)
    if args.reuse and args.workdir.exists():
        words = [f"w{n}" for n in range(4000)]
    else:
        if args.workdir.exists():
            shutil.rmtree(args.workdir)
        words = write_workspace(args.workdir, args.files, args.sections, rng)
    settings = Settings(working_dir=str(args.workdir)).with_changes(
        {"search.embedding.backend": "none", "search.watch": False, "memory.summarize": False}
    )
    memory = FileMemory(args.workdir, settings=settings)
    started = time.perf_counter()
    await memory.start()
    opened = time.perf_counter() - started
    assert memory.index is not None and memory.links is not None
    chunks = memory.index.stats()["chunks"]
    queries = [" ".join(rng.sample(words, 3)) for _ in range(args.queries)]
    await timed(memory, queries[:20], True)  # warm caches
    plain, linked = [], []
    for k in range(0, len(queries), 10):  # interleaved, so load changes hit both alike
        plain += await timed(memory, queries[k : k + 10], False)
        linked += await timed(memory, queries[k : k + 10], True)
    await memory.close()
    p50_plain, p50_linked = percentile(plain, 0.5), percentile(linked, 0.5)
    print(f"{args.files:,} files, {chunks:,} chunks; open (index + link graph) {opened:.1f} s")
    print(
        f"memory_search without links: p50 {p50_plain:.1f} ms, p95 {percentile(plain, 0.95):.1f} ms"
    )
    print(
        f"memory_search with links:    p50 {p50_linked:.1f} ms, p95 {percentile(linked, 0.95):.1f} ms"
    )
    print(
        f"link expansion adds {100 * (p50_linked / p50_plain - 1):+.1f} % at p50 (target ≤ +20 %)"
    )
    print(
        "reproduce: python benchmarks/link_expansion.py "
        f"--files {args.files} --sections {args.sections} --queries {args.queries}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--sections", type=int, default=10)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/remecli-link-bench"))
    parser.add_argument("--reuse", action="store_true", help="keep the workspace of a last run")
    asyncio.run(run(parser.parse_args()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
