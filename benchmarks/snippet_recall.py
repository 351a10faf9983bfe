"""What the model reads: LoCoMo evidence inside the snippets `memory_search` returns.

`locomo_recall.py` counts a hit when its line range covers an evidence turn, but the model reads
the hit's snippet (at most 700 characters of a ~1,600-character chunk) unless it opens the file.
For the same top 10 of the `memory_search` tool at the defaults, this counts an evidence turn as
seen when its text is in the snippet, for two snippets of each hit, side by side: the chunk's
first 700 characters (`head`, before Dec 5) and the run of lines holding the most query words
(`picked`, `remecli/search/snippets.py`). Categories 1-4; `range` is the line-range measure.

Reproduce:  python benchmarks/snippet_recall.py --conversations 0-4 --workdir DIR (then 5-9)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.locomo_recall import (  # noqa: E402
    DEFAULT_DATA,
    parse_evidence,
    parse_selection,
    write_conversation,
)
from remecli.config.search import SearchSettings  # noqa: E402
from remecli.search import MemoryIndex  # noqa: E402
from remecli.search.ranking import head  # noqa: E402
from remecli.tools.registry import memory_search_tool  # noqa: E402

MODES = ("range", "head", "picked")


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--conversations", default="5-9")
    parser.add_argument("--workdir", type=Path, required=True, help="working dirs (kept)")
    parser.add_argument("--backend", default="local", help="search.embedding.backend")
    args = parser.parse_args()
    if not args.data.is_file():
        print(f"SKIPPED: LoCoMo data not found at {args.data} (pass --data PATH)")
        return 0
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    settings = SearchSettings.model_validate({"embedding": {"backend": args.backend}})
    turns = dict.fromkeys(MODES, 0)
    questions = dict.fromkeys(MODES, 0)
    total_turns = total_questions = 0
    for k in parse_selection(args.conversations, len(samples)):
        sample = samples[k]
        working_dir = args.workdir / sample["sample_id"]
        where = write_conversation(sample, working_dir)
        index = MemoryIndex.open(working_dir, settings)
        index.sync_blocking()
        tool = memory_search_tool(index)
        for qa in sample["qa"]:
            ids = parse_evidence(qa.get("evidence", []), set(where), {"repaired": 0, "dropped": 0})
            if qa["category"] not in (1, 2, 3, 4) or not ids:
                continue
            answer = asyncio.run(tool.call(query=qa["question"], max_results=10, min_score=0.0))
            hits = json.loads(answer.content[0].text)
            every = dict.fromkeys(MODES, True)
            for dia in ids:
                path, line = where[dia]
                text = (working_dir / path).read_text(encoding="utf-8").splitlines()[line - 1]
                for mode, seen in seen_by_mode(index, hits, (path, line), text[:80]).items():
                    turns[mode] += seen
                    every[mode] &= seen
                total_turns += 1
            for mode in MODES:
                questions[mode] += every[mode]
            total_questions += 1
        index.close()
    print(
        f"LoCoMo {args.conversations}, categories 1-4, top 10 of memory_search at the defaults: "
        f"{total_questions} questions, {total_turns} evidence turns"
    )
    for mode in MODES:
        print(
            f"{mode:<7} evidence turns seen {turns[mode] / total_turns:.3f}   "
            f"questions with all their evidence seen {questions[mode] / total_questions:.3f}"
        )
    print(
        f"reproduce: python benchmarks/snippet_recall.py --conversations {args.conversations} "
        f"--workdir {args.workdir}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
