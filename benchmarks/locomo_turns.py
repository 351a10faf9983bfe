"""LoCoMo: would one vector per turn order the candidates better? A measurement, not a feature.

remecli embeds one vector per chunk (~10 turns of a conversation); a one-turn fact is diluted
in it. This re-ranks the defaults' own candidates (the `memory_search` order, top `--depth`)
by fused score + w × min-max(best cosine between the question and one turn of the chunk), and
with `speaker` only the turns spoken by a person the question names count ("What has Melanie
painted?" → Melanie's lines); `undated` re-ranks only questions that name no day or month
(the date boost has ordered the others). Turn vectors come from the index's embedder: with
`--turns separate` each turn is embedded on its own (`passage: ` + session heading + the turn's
line), with `--turns late` ("late chunking") the chunk's own text goes through e5 once and each
line's token states are mean-pooled (a vector per line, read in the context of its chunk, from
the model run the chunk's vector needs anyway). Cached per conversation in the working dir
(`turn_vectors.pkl` / `late_vectors.pkl`), so a second run only searches; `--cost` also times
the plain chunk embedding of the same batches, interleaved, and prints both.

    PYTHONPATH=. python benchmarks/locomo_turns.py --workdir DIR [--conversations 0-4]
        [--depth 20|40] [--weight 0.2 --weight 0.3] [--turns separate|late] [--cost]

Use the working dir of an earlier `locomo_recall.py` run (its chunk embeddings are cached
there). Prints any@10 / all@10 per category for the defaults and each re-ranking.
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.locomo_recall import (  # noqa: E402
    CATEGORY_NAMES,
    DEFAULT_DATA,
    covered,
    parse_evidence,
    parse_selection,
    write_conversation,
)
from benchmarks.search_variants import search_variant  # noqa: E402
from remecli.config.search import SearchSettings  # noqa: E402
from remecli.search import MemoryIndex  # noqa: E402
from remecli.search.dates import question_windows  # noqa: E402
from remecli.search.embedding_sync import embedding_text  # noqa: E402

PER_SIDE = 40  # the defaults' candidates per side for a top-10 search (10 × multiplier 4)
Key = tuple[str, int, int]


def chunk_texts(index: MemoryIndex) -> dict[Key, tuple[str, str]]:
    """(path, start, end) → (heading path, text) of every chunk."""
    return {
        (s.chunk.path, s.chunk.start_line, s.chunk.end_line): (s.chunk.heading_path, s.chunk.text)
        for rel in index.store.files()
        for s in index.store.chunks_of(rel)
    }


def turn_vectors(
    index: MemoryIndex, chunks: dict[Key, tuple[str, str]], cache: Path
) -> dict[Key, tuple[list[str], np.ndarray]]:
    """Per chunk: its turn lines and one vector per line (embedded once, cached in `cache`)."""
    known: dict[str, np.ndarray] = pickle.loads(cache.read_bytes()) if cache.exists() else {}
    lines = {key: [x for x in text.splitlines() if x.strip()] for key, (_, text) in chunks.items()}
    texts = {f"{chunks[key][0]}\n{line}" for key, rows in lines.items() for line in rows}
    missing = sorted(texts - set(known))
    if missing:
        assert index.embedder is not None, "turn vectors need an embedder (--backend local)"
        started = time.perf_counter()
        known.update(zip(missing, index.embedder.embed_documents(missing), strict=True))
        cache.write_bytes(pickle.dumps(known))
        print(f"  embedded {len(missing)} turns in {time.perf_counter() - started:.0f} s")
    return {
        key: (rows, np.stack([known[f"{chunks[key][0]}\n{line}"] for line in rows]))
        for key, rows in lines.items()
        if rows
    }


def late_vectors(
    index: MemoryIndex, cache: Path, cost: dict[str, float]
) -> dict[Key, tuple[list[str], np.ndarray]]:
    """Per chunk: its non-blank lines and their late-chunked vectors (one e5 run per chunk,
    each line's token states pooled); cached in `cache`. With `cost` present, also times the
    plain chunk embedding of every batch, interleaved."""
    if cache.exists():
        known: dict[Key, tuple[list[str], np.ndarray]] = pickle.loads(cache.read_bytes())
        return known
    assert index.embedder is not None, "late vectors need the local embedder (--backend local)"
    encoder = index.embedder.encoder()  # type: ignore[attr-defined]
    stored = [s for rel in index.store.files() for s in index.store.chunks_of(rel)]
    texts = [embedding_text(s.chunk) for s in stored]
    lines: list[np.ndarray] = []
    for first in range(0, len(texts), 32):
        batch = texts[first : first + 32]
        started = time.perf_counter()
        lines += encoder.encode_lines(batch)[1]
        cost["late"] = cost.get("late", 0.0) + time.perf_counter() - started
        if "plain" in cost:
            started = time.perf_counter()
            encoder.encode(batch, "passage")
            cost["plain"] += time.perf_counter() - started
    out: dict[Key, tuple[list[str], np.ndarray]] = {}
    for s, vectors in zip(stored, lines, strict=True):
        own = s.chunk.text.split("\n")
        keep = [k for k, row in enumerate(own) if row.strip()]
        mine = vectors[len(vectors) - len(own) :]  # the chunk's lines close the embedded text
        cost["lines"] = cost.get("lines", 0) + len(keep)
        cost["cut"] = cost.get("cut", 0) + sum(not mine[k].any() for k in keep)
        if keep:
            out[(s.chunk.path, s.chunk.start_line, s.chunk.end_line)] = (
                [own[k] for k in keep],
                mine[keep],
            )
    cost["chunks"] = cost.get("chunks", 0) + len(stored)
    cache.write_bytes(pickle.dumps(out))
    return out


def reranked(
    pool: list[tuple[Key, float]],
    turns: dict[Key, tuple[list[str], np.ndarray]],
    query: np.ndarray,
    speakers: set[str],
    weight: float,
) -> list[Key]:
    """`pool` re-ordered by score + weight × min-max(best turn cosine); with `speakers`, only
    their lines count (a chunk without one gets the pool's lowest)."""
    best: list[float | None] = []
    for key, _ in pool:
        rows, vectors = turns[key]
        cosines = vectors @ query
        if speakers:
            mine = [k for k, row in enumerate(rows) if row.split(":", 1)[0] in speakers]
            cosines = cosines[mine] if mine else np.array([])
        best.append(float(cosines.max()) if len(cosines) else None)
    seen = [b for b in best if b is not None]
    low, high = (min(seen), max(seen)) if seen else (0.0, 1.0)
    span = high - low if high - low > 1e-9 else 1.0
    scored = [
        (score + weight * ((b - low) / span if b is not None else 0.0), k)
        for k, ((key, score), b) in enumerate(zip(pool, best, strict=True))
    ]
    return [pool[k][0] for _, k in sorted(scored, key=lambda x: (-x[0], x[1]))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--conversations", default="0-4")
    parser.add_argument("--depth", type=int, choices=(20, 40), default=20)
    parser.add_argument("--weight", type=float, action="append", default=[])
    parser.add_argument("--turns", choices=("separate", "late"), default="separate")
    parser.add_argument("--cost", action="store_true", help="also time plain chunk embedding")
    args = parser.parse_args()
    if not args.data.is_file():
        print(f"SKIPPED: LoCoMo data not found at {args.data} (pass --data PATH)")
        return 0
    weights = args.weight or [0.2, 0.3]
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    settings = SearchSettings.model_validate({"embedding": {"backend": "local"}})
    pool_settings = {"candidate_multiplier": PER_SIDE // args.depth}
    kinds = ("turn", "speaker", "undated")
    modes = ["defaults"] + [f"{kind} w={w}" for kind in kinds for w in weights]
    sums: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    cost: dict[str, float] = {"plain": 0.0} if args.cost else {}
    for k in parse_selection(args.conversations, len(samples)):
        sample = samples[k]
        folder = args.workdir / sample["sample_id"]
        where = write_conversation(sample, folder)
        index = MemoryIndex.open(folder, settings)
        index.sync_blocking()
        chunks = chunk_texts(index)
        if args.turns == "late":
            turns = late_vectors(index, folder / "late_vectors.pkl", cost)
        else:
            turns = turn_vectors(index, chunks, folder / "turn_vectors.pkl")
        names = {row.split(":", 1)[0] for rows, _ in turns.values() for row in rows if ":" in row}
        stats = {"repaired": 0, "dropped": 0}
        for qa in sample["qa"]:
            evidence_ids = parse_evidence(qa.get("evidence", []), set(where), stats)
            if qa["category"] not in CATEGORY_NAMES or qa["category"] == 5 or not evidence_ids:
                continue
            question = qa["question"]
            found = search_variant(index, question, args.depth, 0.0, overrides=pool_settings)
            pool = [((r.path, r.start_line, r.end_line), r.score) for r in found]
            pool = [(key, score) for key, score in pool if key in turns]
            assert index.embedder is not None
            query = index.embedder.embed_query(question)
            named = {n for n in names if re.search(rf"\b{re.escape(n)}\b", question)}
            orders = {"defaults": [key for key, _ in pool]}
            dated = bool(question_windows(question))  # the date boost already ordered these
            for w in weights:
                orders[f"turn w={w}"] = reranked(pool, turns, query, set(), w)
                orders[f"speaker w={w}"] = reranked(pool, turns, query, named, w)
                orders[f"undated w={w}"] = orders["defaults" if dated else f"turn w={w}"]
            evidence = [where[d] for d in evidence_ids]
            for mode, order in orders.items():
                hits = covered(order[:10], evidence)
                row = sums[mode][qa["category"]]
                row[0] += 1
                row[1] += any(hits)
                row[2] += all(hits)
        index.close()
        print(f"  {sample['sample_id']} done", file=sys.stderr)
    report(sums, modes, args)
    if cost.get("chunks"):
        print(
            f"late vectors: {cost['chunks']:.0f} chunks, {cost['lines']:.0f} lines "
            f"({cost['cut']:.0f} past e5's 512-token window: no vector), "
            f"{cost['lines'] * 384 * 4 / 1e6:.1f} MB as float32 beside "
            f"{cost['chunks'] * 384 * 4 / 1e6:.1f} MB of chunk vectors; "
            f"e5 with line pooling {cost['late']:.1f} s"
            + (f", plain chunk embedding {cost['plain']:.1f} s (interleaved)" if args.cost else "")
        )
    return 0


def report(sums: dict[str, dict[int, list[int]]], modes: list[str], args) -> None:
    """any@10 / all@10 per category and over categories 1-4, one line per mode."""
    print(f"\nLoCoMo {args.conversations}, top {args.depth} re-ranked (any@10 / all@10):")
    names = [f"{c} {CATEGORY_NAMES[c]}" for c in (1, 2, 3, 4)]
    print(f"{'mode':<16}" + "".join(f"{n:>16}" for n in [*names, "1-4 all"]))
    for mode in modes:
        rows = [sums[mode][c] for c in (1, 2, 3, 4)]
        total = [sum(r[i] for r in rows) for i in range(3)]
        cells = [f"{r[1] / r[0]:.3f} / {r[2] / r[0]:.3f}" if r[0] else "-" for r in [*rows, total]]
        print(f"{mode:<16}" + "".join(f"{c:>16}" for c in cells))
    command = "PYTHONPATH=. python benchmarks/locomo_turns.py"
    command += f" --workdir {args.workdir} --conversations {args.conversations}"
    command += f" --depth {args.depth}" + "".join(f" --weight {w}" for w in args.weight)
    command += f" --turns {args.turns}" + (" --cost" if args.cost else "")
    print(f"reproduce: {command}")


if __name__ == "__main__":
    raise SystemExit(main())
