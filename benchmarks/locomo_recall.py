"""LoCoMo evidence recall through remecli's real memory index and `memory_search` tool.

Each LoCoMo session becomes one Markdown file (`memory/session_NN.md`, one turn per line) in a
working dir per conversation; every question is searched and a hit counts when a returned line
range covers an evidence turn. Reports evidence any@5/all@5/any@10/all@10 per LoCoMo category
(multi-hop = 1 on its own) and for categories 1-4, every mode on the same chunks of the same
index: the two baselines (`bm25` = remecli's BM25 alone, `hybrid` = BM25 + vectors, both without
file diversity, sub-queries and date boost), `vector` alone, `bm25+` (keyword only at the
default diversity, sub-queries and date boost: the defaults minus the vector side) and `defaults` (the agent's
`memory_search` tool at the default settings).

    PYTHONPATH=. python benchmarks/locomo_recall.py [--data PATH] [--workdir DIR]
        [--conversations 0-4|5-9|0,3,7] [--limit N] [--as notes|transcripts]
        [--variant NAME:key=value,key=value ...] [--backend local|none]

`--conversations` selects conversations by index (0-9): decisions are made on the dev split
(0-4) and checked on the held-out split (5-9). `--workdir` keeps the working dirs (and the
embedding cache in them) between runs; without it each run works in a fresh temporary folder
that is deleted at the end. `--as transcripts` writes each session as
`sessions/session_NN.jsonl` (one message record per turn, as the app's transcript does) instead
of Markdown notes: the realistic case where nothing was summarized yet. `--variant` adds a mode
with search settings changed (e.g. `w07:vector_weight=0.7`, `d0:file_diversity=0`,
`rrf:fusion=rrf`).

Evaluation only: LoCoMo is CC BY-NC 4.0; nothing from it is copied into the project.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.locomo_cards import through_cards, write_cards  # noqa: E402
from benchmarks.search_variants import search_variant  # noqa: E402
from remecli.config.search import SearchSettings  # noqa: E402
from remecli.search import MemoryIndex  # noqa: E402
from remecli.tools.registry import memory_search_tool  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo10.json"
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
# the baselines: no new ranking (no file diversity, sub-queries or date boost)
PLAIN = {"file_diversity": 0.0, "query_parts": False, "date_boost": 0.0}
MODES = ("bm25", "hybrid", "vector", "bm25+", "defaults")
_DIA = re.compile(r"D:?(\d+):0*(\d+)")


def parse_evidence(raw: list[str], known: set[str], stats: dict[str, int]) -> list[str]:
    """Valid dia_ids of one question; repairs 'D8:6; D9:17', 'D:11:26', 'D30:05'."""
    found: list[str] = []
    for item in raw:
        matches = _DIA.findall(item)
        if not matches:
            stats["dropped"] += 1
            continue
        ids = [f"D{s}:{t}" for s, t in matches]
        if len(ids) > 1 or ids[0] != item:
            stats["repaired"] += 1
        for dia in ids:
            if dia in known:
                found.append(dia)
            else:
                stats["dropped"] += 1
    return list(dict.fromkeys(found))


def parse_selection(spec: str, count: int) -> list[int]:
    """Indexes from '0-4', '5-9', '0,3,7' or '' (= all), each checked against `count`."""
    if not spec.strip():
        return list(range(count))
    chosen: list[int] = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        low, high = int(first), int(last or first)
        if not 0 <= low <= high < count:
            raise SystemExit(f"--conversations {spec!r}: indexes must be within 0-{count - 1}")
        chosen += range(low, high + 1)
    return list(dict.fromkeys(chosen))


def write_conversation(sample: dict, working_dir: Path) -> dict[str, tuple[str, int]]:
    """Write the sessions as Markdown; dia_id → (relative path, line number)."""
    conversation = sample["conversation"]
    memory = working_dir / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    where: dict[str, tuple[str, int]] = {}
    numbers = sorted(int(k.split("_")[1]) for k in conversation if re.fullmatch(r"session_\d+", k))
    for n in numbers:
        rel = f"memory/session_{n:02d}.md"
        lines = [f"# Session {n} ({conversation.get(f'session_{n}_date_time', '')})", ""]
        for turn in conversation[f"session_{n}"]:
            text = turn["text"].replace("\n", " ")
            if turn.get("blip_caption"):
                text += f" [shared an image: {turn['blip_caption']}]"
            lines.append(f"{turn['speaker']}: {text}")
            where[turn["dia_id"]] = (rel, len(lines))
        target = working_dir / rel
        content = "\n".join(lines) + "\n"
        if not target.exists() or target.read_text(encoding="utf-8") != content:
            target.write_text(content, encoding="utf-8")
    return where


def _when(text: str) -> str:
    """LoCoMo's "1:56 pm on 8 May, 2023" as ISO (or "" when it does not parse)."""
    import datetime as dt

    try:
        return dt.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").isoformat()
    except ValueError:
        return ""


def write_transcripts(sample: dict, working_dir: Path) -> dict[str, tuple[str, int]]:
    """Write the sessions as transcripts (JSONL); dia_id → (relative path, line number)."""
    conversation = sample["conversation"]
    folder = working_dir / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    where: dict[str, tuple[str, int]] = {}
    numbers = sorted(int(k.split("_")[1]) for k in conversation if re.fullmatch(r"session_\d+", k))
    for n in numbers:
        rel = f"sessions/session_{n:02d}.jsonl"
        at = _when(conversation.get(f"session_{n}_date_time", ""))
        lines = []
        for k, turn in enumerate(conversation[f"session_{n}"]):
            text = turn["text"]
            if turn.get("blip_caption"):
                text += f" [shared an image: {turn['blip_caption']}]"
            msg = {
                "name": turn["speaker"],
                "role": "user" if k % 2 == 0 else "assistant",
                "id": f"{n}-{k}",
                "content": [{"type": "text", "text": text}],
            }
            lines.append(json.dumps({"t": "msg", "at": at, "msg": msg}, ensure_ascii=False))
            where[turn["dia_id"]] = (rel, len(lines))
        target = working_dir / rel
        content = "\n".join(lines) + "\n"
        if not target.exists() or target.read_text(encoding="utf-8") != content:
            target.write_text(content, encoding="utf-8")
            quiet = time.time() - 3600  # a finished session: its last chunk gets a vector too
            os.utime(target, (quiet, quiet))
    return where


def parse_variant(spec: str) -> tuple[str, dict]:
    """`name:key=value,key=value` → (mode name, search-setting overrides)."""
    name, _, body = spec.partition(":")
    overrides: dict = {}
    for item in filter(None, body.split(",")):
        key, _, raw = item.partition("=")
        value: object = raw
        for cast in (int, float):
            try:
                value = cast(raw)
                break
            except ValueError:
                continue
        overrides[key.strip()] = value
    return f"v:{name}", overrides


def covered(hits: list[tuple[str, int, int]], evidence: list[tuple[str, int]]) -> list[bool]:
    """For each evidence turn: is its line inside one of the hits?"""
    return [any(p == path and s <= line <= e for p, s, e in hits) for path, line in evidence]


def chunk_line_total(index: MemoryIndex) -> int:
    """Sum of the chunks' line spans (inclusive), to report the average chunk length."""
    return sum(
        stored.chunk.end_line - stored.chunk.start_line + 1
        for rel in index.store.files()
        for stored in index.store.chunks_of(rel)
    )


def search_modes(
    index: MemoryIndex, tool, question: str, variants: dict[str, dict], latencies: list[float]
) -> dict[str, list[tuple[str, int, int]]]:
    """Top-10 (path, start, end) per retrieval mode, all on the same index; the wall time of
    the `memory_search` call at the defaults is appended to `latencies`."""
    runs: dict[str, dict] = {
        "bm25": dict(use_vector=False, overrides=PLAIN),
        "hybrid": dict(overrides=PLAIN),
        "vector": dict(use_keyword=False, overrides=PLAIN),
        "bm25+": dict(use_vector=False),
    }
    runs.update({name: dict(overrides=o) for name, o in variants.items()})
    out = {}
    for mode, kwargs in runs.items():
        results = search_variant(index, question, 10, 0.0, **kwargs)
        out[mode] = [(r.path, r.start_line, r.end_line) for r in results]
    started = time.perf_counter()
    response = asyncio.run(tool.function(query=question, max_results=10, min_score=0.0))
    latencies.append(time.perf_counter() - started)
    out["defaults"] = [
        (r["path"], r["start_line"], r["end_line"]) for r in json.loads(response.text)
    ]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--workdir", type=Path, default=None, help="keep working dirs here (default: a temp dir)"
    )
    parser.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    parser.add_argument(
        "--conversations", default="", help="conversation indexes, e.g. 0-4 (dev) or 5-9 (test)"
    )
    parser.add_argument("--backend", default="local", help="search.embedding.backend")
    parser.add_argument(
        "--local-model", default="", help="search.embedding.local_model (default: the setting's)"
    )
    parser.add_argument("--as", dest="form", choices=("notes", "transcripts"), default="notes")
    parser.add_argument("--variant", action="append", default=[], help="name:key=value,...")
    parser.add_argument(
        "--index-setting", action="append", default=[], help="key=value: index-time setting"
    )
    parser.add_argument(
        "--cards",
        choices=("session", "fact"),
        default="",
        help="add LoCoMo's facts as cards, one per session or per fact (locomo_cards.py)",
    )
    parser.add_argument(
        "--depth", type=int, default=0, help="also print the hybrid baseline's all@DEPTH"
    )
    args = parser.parse_args()
    if not args.data.is_file():
        print(f"SKIPPED: LoCoMo data not found at {args.data} (pass --data PATH)")
        return 0
    if args.workdir is None:
        with tempfile.TemporaryDirectory(prefix="remecli-locomo-") as folder:
            return run(args, Path(folder))
    return run(args, args.workdir)


def run(args: argparse.Namespace, workdir: Path) -> int:
    """Index every selected conversation under `workdir`, search every question, report."""
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    samples = [samples[k] for k in parse_selection(args.conversations, len(samples))]
    if args.limit:
        samples = samples[: args.limit]
    embedding = {"backend": args.backend}
    if args.local_model:
        embedding["local_model"] = args.local_model
    index_settings = parse_variant(":" + ",".join(args.index_setting))[1]
    settings = SearchSettings.model_validate({"embedding": embedding, **index_settings})
    variants = dict(parse_variant(v) for v in args.variant)
    modes = [*MODES, *variants]
    # sums[mode][category] = [n, any5, all5, any10, all10]
    sums: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0] * 5))
    stats = {"repaired": 0, "dropped": 0, "questions_without_evidence": 0}
    depth_sums: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    latencies: list[float] = []
    started = time.perf_counter()
    index_seconds = 0.0
    chunks = 0
    chunk_lines = 0
    for sample in samples:
        working_dir = workdir / sample["sample_id"]
        if args.form == "transcripts":
            where = write_transcripts(sample, working_dir)
        else:
            where = write_conversation(sample, working_dir)
        cites = write_cards(sample, working_dir, where, args.cards) if args.cards else {}
        t0 = time.perf_counter()
        index = MemoryIndex.open(working_dir, settings)
        index.sync_blocking()
        index_seconds += time.perf_counter() - t0
        chunks += index.stats()["chunks"]
        chunk_lines += chunk_line_total(index)
        tool = memory_search_tool(index)
        for qa in sample["qa"]:
            evidence_ids = parse_evidence(qa.get("evidence", []), set(where), stats)
            if not evidence_ids:
                stats["questions_without_evidence"] += 1
                continue
            evidence = [where[d] for d in evidence_ids]
            if args.depth:
                deep = search_variant(index, qa["question"], args.depth, 0.0, overrides=PLAIN)
                hits = [(r.path, r.start_line, r.end_line) for r in deep]
                depth_sums[qa["category"]][0] += 1
                depth_sums[qa["category"]][1] += all(covered(through_cards(hits, cites), evidence))
            for mode, hits in search_modes(
                index, tool, qa["question"], variants, latencies
            ).items():
                row = sums[mode][qa["category"]]
                hit5 = covered(through_cards(hits[:5], cites), evidence)
                hit10 = covered(through_cards(hits[:10], cites), evidence)
                row[0] += 1
                row[1] += any(hit5)
                row[2] += all(hit5)
                row[3] += any(hit10)
                row[4] += all(hit10)
        index.close()
        print(f"  {sample['sample_id']}: {len(where)} turns indexed", file=sys.stderr)
    stats["chunk_lines"] = chunk_lines
    latencies.sort()
    stats["p50_ms"] = 1000 * latencies[len(latencies) // 2] if latencies else 0.0
    report(sums, stats, chunks, index_seconds, time.perf_counter() - started, settings, args, modes)
    for category, (n, hit) in sorted(depth_sums.items()):
        print(f"hybrid all@{args.depth}, category {category}: {hit / n:.3f} ({n} questions)")
    return 0


def _rates(row: list[float]) -> str:
    return "".join(f"{v / row[0]:>8.3f}" for v in row[1:]) if row[0] else ""


def report(sums, stats, chunks, index_seconds, total_seconds, settings, args, modes) -> None:
    """Print the figures per mode and category, a summary, and the command to reproduce them."""
    average = stats["chunk_lines"] / chunks if chunks else 0.0
    print(
        f"\nLoCoMo evidence recall ({chunks} chunks, {average:.1f} lines on average; "
        f"conversations {args.conversations or 'all'}; chunk_tokens={settings.chunk_tokens}, "
        f"overlap={settings.chunk_overlap}, fusion={settings.fusion}, "
        f"vector_weight={settings.vector_weight}, file_diversity={settings.file_diversity}, "
        f"query_parts={settings.query_parts}, date_boost={settings.date_boost}, embedding backend={args.backend} "
        f"{args.local_model}; written as {args.form})"
    )
    header = (
        f"{'mode':<12}{'category':<14}{'n':>6}{'any@5':>8}{'all@5':>8}{'any@10':>8}{'all@10':>8}"
    )
    print(header + "\n" + "-" * len(header))
    totals: dict[str, list[float]] = {}
    for mode in modes:
        total = [0.0] * 5
        for category in sorted(sums[mode]):
            row = sums[mode][category]
            label = f"{category} {CATEGORY_NAMES.get(category, '')}"
            print(f"{mode:<12}{label:<14}{int(row[0]):>6}{_rates(row)}")
            if category in (1, 2, 3, 4):
                total = [a + b for a, b in zip(total, row, strict=True)]
        totals[mode] = total
        print(f"{mode:<12}{'1-4 all':<14}{int(total[0]):>6}{_rates(total)}\n")
    print("summary (any@10 / all@10; same chunks, same index for every mode):")
    names = [f"{c} {CATEGORY_NAMES[c]}" for c in (1, 2, 3, 4)]
    print(f"{'mode':<12}" + "".join(f"{n:>16}" for n in [*names, "1-4 all"]))
    for mode in modes:
        cells = []
        for row in [*(sums[mode].get(c, [0.0] * 5) for c in (1, 2, 3, 4)), totals[mode]]:
            cells.append(f"{row[3] / row[0]:.3f} / {row[4] / row[0]:.3f}" if row[0] else "-")
        print(f"{mode:<12}" + "".join(f"{c:>16}" for c in cells))
    print(
        f"evidence strings repaired: {stats['repaired']}, dropped: {stats['dropped']}; "
        f"questions without usable evidence: {stats['questions_without_evidence']}"
    )
    print(f"indexing (incl. embedding): {index_seconds:.1f} s; whole run: {total_seconds:.1f} s")
    print(f"memory_search at the defaults, p50 latency: {stats['p50_ms']:.0f} ms (warm, top 10)")
    print("goal at the defaults on conversations 5-9: any@10 >= 0.97, all@10 >= 0.90")
    command = "PYTHONPATH=. python benchmarks/locomo_recall.py"
    if args.workdir is not None:
        command += f" --workdir {args.workdir}"
    if args.form != "notes":
        command += f" --as {args.form}"
    command += "".join(f" --variant {v}" for v in args.variant)
    command += "".join(f" --index-setting {v}" for v in args.index_setting)
    if args.cards:
        command += f" --cards {args.cards}"
    if args.depth:
        command += f" --depth {args.depth}"
    if args.conversations:
        command += f" --conversations {args.conversations}"
    if args.limit:
        command += f" --limit {args.limit}"
    if args.backend != "local":
        command += f" --backend {args.backend}"
    print(f"reproduce: {command}")


if __name__ == "__main__":
    raise SystemExit(main())
