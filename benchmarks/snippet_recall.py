"""What the model reads: LoCoMo evidence inside the snippets `memory_search` returns.

`locomo_recall.py` counts a hit when its line range covers an evidence turn, but the model reads
the hit's snippet (at most 700 characters of the chunk) unless it opens the file. For the same
top k of the `memory_search` tool (`--results`, 10 by default; the agent's own default is 5),
this counts an evidence turn as seen when its text is in the snippet, for two snippets of each
hit, side by side: the chunk's first 700 characters (`head`) and the run of lines holding the
most query words (`picked`, what the tool returns: `remecli/search/snippets.py`); `range` is the
line-range measure. It prints the characters of snippets one search returns, so settings are
compared at the same reading budget (`--index-setting chunk_tokens=400 --index-setting
chunk_overlap=80`: the chunking before Dec 5). Categories 1-4.

Reproduce:  python benchmarks/snippet_recall.py --conversations 0-4 --workdir DIR (then 5-9)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.locomo_recall import (  # noqa: E402
    DEFAULT_DATA,
    parse_evidence,
    parse_selection,
    parse_variant,
    write_conversation,
    write_transcripts,
)
from remecli.config.search import SearchSettings  # noqa: E402
from remecli.search import MemoryIndex  # noqa: E402
from remecli.search.ranking import head  # noqa: E402
from remecli.tools.registry import memory_search_tool  # noqa: E402

MODES = ("range", "head", "picked")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def seen_by_mode(index: MemoryIndex, hits: list[dict], turn: tuple[str, int], text: str) -> dict:
    """For one evidence turn: is it in a hit's line range, its head, its picked snippet?"""
    path, line = turn
    seen = dict.fromkeys(MODES, False)
    for hit in hits:
        if hit["path"] != path or not hit["start_line"] <= line <= hit["end_line"]:
            continue
        seen["range"] = True
        chunk = next(
            s.chunk for s in index.store.chunks_of(path) if s.chunk.start_line == hit["start_line"]
        )
        seen["head"] |= text in head(chunk.text)
        seen["picked"] |= text in hit["snippet"]
    return seen


def _share(asked: list[tuple[int, dict, dict]], mode: str) -> str:
    """Questions with any / all of their evidence seen in `mode`, as shares."""
    some = sum(one[mode] for _, one, _ in asked) / len(asked)
    every = sum(all_[mode] for _, _, all_ in asked) / len(asked)
    return f"{some:.3f} / {every:.3f}"


def _turns(sample: dict) -> list[dict]:
    """Every turn of every session."""
    sessions = sample["conversation"].items()
    return [
        t
        for key, turns in sessions
        if key.startswith("session_") and isinstance(turns, list)
        for t in turns
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--conversations", default="5-9")
    parser.add_argument("--workdir", type=Path, required=True, help="working dirs (kept)")
    parser.add_argument("--backend", default="local", help="search.embedding.backend")
    parser.add_argument("--as", dest="form", choices=("notes", "transcripts"), default="notes")
    parser.add_argument("--results", type=int, default=10, help="max_results of each search")
    parser.add_argument(
        "--index-setting", action="append", default=[], help="key=value: index-time setting"
    )
    args = parser.parse_args()
    if not args.data.is_file():
        print(f"SKIPPED: LoCoMo data not found at {args.data} (pass --data PATH)")
        return 0
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    index_settings = parse_variant(":" + ",".join(args.index_setting))[1]
    settings = SearchSettings.model_validate(
        {"embedding": {"backend": args.backend}, **index_settings}
    )
    turns = dict.fromkeys(MODES, 0)
    total_turns = 0
    asked: list[tuple[int, dict, dict]] = []  # (category, any seen, all seen) per question
    read_chars: list[int] = []  # the snippets' characters one search returns
    for k in parse_selection(args.conversations, len(samples)):
        sample = samples[k]
        working_dir = args.workdir / sample["sample_id"]
        write = write_transcripts if args.form == "transcripts" else write_conversation
        where = write(sample, working_dir)
        said = {t["dia_id"]: t["text"] for t in _turns(sample)}
        lines_of: dict[str, list[str]] = {}  # each session file's lines, read once
        index = MemoryIndex.open(working_dir, settings)
        index.sync_blocking()
        tool = memory_search_tool(index)
        for qa in sample["qa"]:
            ids = parse_evidence(qa.get("evidence", []), set(where), {"repaired": 0, "dropped": 0})
            if qa["category"] not in (1, 2, 3, 4) or not ids:
                continue
            answer = asyncio.run(
                tool.function(query=qa["question"], max_results=args.results, min_score=0.0)
            )
            hits = json.loads(answer.text)
            read_chars.append(sum(len(hit["snippet"]) for hit in hits))
            every = dict.fromkeys(MODES, True)
            one = dict.fromkeys(MODES, False)
            for dia in ids:
                path, line = where[dia]
                if args.form == "transcripts":  # a chunk shows "speaker: text" of each message
                    text = said[dia].strip()
                else:
                    if path not in lines_of:
                        text = (working_dir / path).read_text(encoding="utf-8")
                        lines_of[path] = text.splitlines()
                    text = lines_of[path][line - 1]
                for mode, seen in seen_by_mode(index, hits, (path, line), text[:80]).items():
                    turns[mode] += seen
                    every[mode] &= seen
                    one[mode] |= seen
                total_turns += 1
            asked.append((qa["category"], one, every))
        index.close()
    print(
        f"LoCoMo {args.conversations} as {args.form}, categories 1-4, top {args.results} of "
        f"memory_search at the defaults: {len(asked)} questions, {total_turns} evidence turns; "
        f"snippets read per search: median {statistics.median(read_chars):,.0f} characters"
    )
    for mode in MODES:
        print(
            f"{mode:<7} evidence turns seen {turns[mode] / total_turns:.3f}   questions with "
            f"any / all their evidence seen {_share(asked, mode)}"
        )
    print("picked, per category (any / all):")
    for category, name in CATEGORIES.items():
        print(f"  {category} {name} {_share([q for q in asked if q[0] == category], 'picked')}")
    extra = "".join(f" --index-setting {v}" for v in args.index_setting)
    extra += f" --as {args.form} --results {args.results}"
    print(
        f"reproduce: python benchmarks/snippet_recall.py --conversations {args.conversations} "
        f"--workdir {args.workdir}{extra}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
