"""Where the local embedder's cosine says "nothing here": nonsense vs real questions on LoCoMo.

For each conversation's index (built by `locomo_recall.py` / `snippet_recall.py` in the same
`--workdir`), prints the distribution of the best cosine a query reaches among the chunks for
three kinds of query: gibberish (seeded random letter strings, plus the issue's examples),
off-topic questions in real words, and LoCoMo's questions (categories 1-4: the best chunk's
cosine, and the cosine of the best chunk holding an evidence turn). The vector side's floor
and its "strong" point (`search/calibration.py`) are chosen from these figures. Then the
same for the fused score `memory_search` gives (the best hit; for questions also the best hit
holding evidence): where `ranking.WEAK_SCORE` is drawn.

Reproduce:  python benchmarks/score_floor.py --conversations 5-9 --workdir DIR
            python benchmarks/score_floor.py --memories --workdir DIR   (one-sentence memories)
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import string
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.locomo_recall import (  # noqa: E402
    DEFAULT_DATA,
    parse_evidence,
    parse_selection,
    write_conversation,
)
from remecli.config.search import SearchSettings  # noqa: E402
from remecli.search import MemoryIndex, SearchRequest  # noqa: E402
from remecli.search.calibration import calibration_for  # noqa: E402
from remecli.search.embedders import make_embedder  # noqa: E402
from remecli.search.ranking import WEAK_SCORE  # noqa: E402

ISSUE = ["xqzvbnm flurbo", "zzzqqq nothing", "asdf qwer zxcv", "blorptangle vrxx"]
OFF_TOPIC = [
    "kubernetes pod eviction policy",
    "how to compile the linux kernel with clang",
    "quarterly VAT filing deadline for a limited company",
    "replace the timing belt on a diesel engine",
    "difference between TCP and UDP",
    "segfault in the faiss inner product kernel",
    "mortgage amortization schedule formula",
    "which SQL isolation level prevents phantom reads",
    "photosynthesis light-dependent reactions",
    "rust borrow checker lifetime error",
]


# One-sentence memories (the vector memory's kind of text) and a question for each, sharing
# (almost) no word with it: the scale of `retrieve` (`calibration.E5_MEMORIES`).
MEMORIES = {
    "User likes coffee, a flat white every morning with oat milk.": "what do I drink in the morning",
    "The user prefers Python 3.12 and uses uv for packaging.": "which python version",
    "Deploys follow deploy-notes.md; the outage is tracked in issue #184.": "how do we deploy",
    "We discussed the Kubernetes migration plan and the nightly database backup schedule.": (
        "database backups"
    ),
    "Tried a new sourdough recipe; the crumb was too dense.": "bread baking",
    "Booked flights to Lisbon for the conference in June.": "travel plans to Portugal",
    "The mechanic replaced the brake pads on the old Volvo.": "car repair",
    "User's daughter is called Mia and she is seven.": "how old is my kid",
    "User is allergic to peanuts.": "food allergies",
    "The team standup moved to 9:30 on Mondays.": "when is the standup",
    "用户喜欢用 Rust 编写命令行工具。": "what language for CLI tools",
    "我每天早上在公园里跑五公里，然后做拉伸。": "exercise habits",
    "Alice has a cat named Miso": "which animal lives with her?",
    "Alice works as a nurse in Lyon": "What is her profession?",
    "爱丽丝喜欢在周末爬山": "她周末做什么运动",
}


def short_memories(count: int) -> None:
    """Lifts of gibberish and of each memory's question against one-sentence memories."""
    embedder = make_embedder(SearchSettings().embedding)
    calibration = calibration_for(embedder, "memories")
    assert embedder is not None and calibration is not None
    texts = list(MEMORIES)
    matrix = embedder.embed_documents(texts)

    def lifts(query: str) -> np.ndarray:
        vector = embedder.embed_query(query)
        return matrix @ vector - calibration.baseline(vector)

    junk = [float(lifts(q).max()) for q in gibberish(count)]
    real = [float(lifts(q)[texts.index(m)]) for m, q in MEMORIES.items()]
    print(f"one-sentence memories ({len(texts)}): lift of the best memory")
    print(f"  lift   gibberish          {quantiles(junk)}")
    print(f"  lift   its question       {quantiles(real)}")


def gibberish(count: int, seed: int = 7) -> list[str]:
    """`count` random queries of 1-3 letter strings (seeded), after the issue's own."""
    rng = random.Random(seed)
    made = list(ISSUE)
    while len(made) < count:
        words = [
            "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 9)))
            for _ in range(rng.randint(1, 3))
        ]
        made.append(" ".join(words))
    return made


def quantiles(values: list[float]) -> str:
    """min, 5/25/50/75/95th percentiles and max."""
    cuts = statistics.quantiles(values, n=20, method="inclusive")
    return (
        f"n={len(values):4d}  min {min(values):.3f}  p5 {cuts[0]:.3f}  p25 {cuts[4]:.3f}  "
        f"p50 {cuts[9]:.3f}  p75 {cuts[14]:.3f}  p95 {cuts[18]:.3f}  max {max(values):.3f}"
    )


class Measure:
    """Notes the best cosine (and lift) of queries against one conversation's index."""

    def __init__(
        self,
        index: MemoryIndex,
        kinds: dict[str, list[float]],
        lifts: dict[str, list[float]],
        fused: dict[str, list[float]],
    ) -> None:
        assert index.parts.vectors is not None and index.embedder is not None
        calibration = calibration_for(index.embedder)
        assert calibration is not None
        self.index, self.vectors, self.embedder = index, index.parts.vectors, index.embedder
        self.calibration, self.kinds, self.lifts = calibration, kinds, lifts
        self.fused = fused

    def scores(self, kind: str, query: str) -> list[tuple[str, int, int, float]]:
        """The fused hits of `query` (path, lines, score); notes the best score (0: none)."""
        hits = self.index.search_blocking(SearchRequest(query=query, max_results=10, min_score=0.0))
        self.fused[kind].append(hits[0].score if hits else 0.0)
        return [(h.path, h.start_line, h.end_line, h.score) for h in hits]

    def note(self, kind: str, query: np.ndarray, cosine: float) -> None:
        self.kinds[kind].append(cosine)
        self.lifts[kind].append(cosine - self.calibration.baseline(query))

    def best(self, kind: str, query: str) -> None:
        vector = self.embedder.embed_query(query)
        self.note(kind, vector, self.vectors.search(vector, 1)[0][1])
        self.scores(kind, query)

    def conversation(
        self, sample: dict, where: dict[str, tuple[str, int]], junk: list[str]
    ) -> None:
        for query in junk:
            self.best("gibberish", query)
        for query in OFF_TOPIC:
            self.best("off-topic", query)
        ranges = {path: self.index.store.chunks_of(path) for path, _ in where.values()}
        for qa in sample["qa"]:
            ids = parse_evidence(qa.get("evidence", []), set(where), {"repaired": 0, "dropped": 0})
            if qa["category"] not in (1, 2, 3, 4) or not ids:
                continue
            query = self.embedder.embed_query(qa["question"])
            self.note("question top", query, self.vectors.search(query, 1)[0][1])
            hits = self.scores("question top", qa["question"])
            turns = [where[dia] for dia in ids]
            held = [s for path, a, b, s in hits if any(p == path and a <= n <= b for p, n in turns)]
            self.fused["question evidence"].append(max(held, default=0.0))
            holding = {
                stored.id
                for dia in ids
                for stored in ranges[where[dia][0]]
                if stored.chunk.start_line <= where[dia][1] <= stored.chunk.end_line
            }
            found = self.vectors.scores_of(query, sorted(holding))
            self.note("question evidence", query, max(s for _, s in found))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--conversations", default="5-9")
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--gibberish", type=int, default=40, help="random queries")
    parser.add_argument("--memories", action="store_true", help="one-sentence memories only")
    args = parser.parse_args()
    if args.memories:
        short_memories(args.gibberish)
        return 0
    if not args.data.is_file():
        print(f"SKIPPED: LoCoMo data not found at {args.data} (pass --data PATH)")
        return 0
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    settings = SearchSettings()
    names = ("gibberish", "off-topic", "question top", "question evidence")
    kinds: dict[str, list[float]] = {name: [] for name in names}
    lifts: dict[str, list[float]] = {name: [] for name in names}
    fused: dict[str, list[float]] = {name: [] for name in names}
    for k in parse_selection(args.conversations, len(samples)):
        sample = samples[k]
        working_dir = args.workdir / sample["sample_id"]
        where = write_conversation(sample, working_dir)
        index = MemoryIndex.open(working_dir, settings)
        index.sync_blocking()
        Measure(index, kinds, lifts, fused).conversation(sample, where, gibberish(args.gibberish))
        index.close()
    print(f"LoCoMo {args.conversations}, {settings.embedding.local_model}: best cosine per query")
    for kind, values in kinds.items():
        print(f"  cosine {kind:<18} {quantiles(values)}")
    print("lift: cosine minus the query's mean cosine to the reference passages")
    for kind, values in lifts.items():
        print(f"  lift   {kind:<18} {quantiles(values)}")
    print("fused score of the best hit (evidence: of the best hit holding it; 0: none in 10)")
    for kind, values in fused.items():
        print(f"  fused  {kind:<18} {quantiles(values)}")
        shares = "  ".join(
            f"< {cut:.2f}: {sum(0 < v < cut for v in values) / len(values):.3f}"
            for cut in (0.2, 0.25, WEAK_SCORE, 0.35, 0.4)
        )
        print(
            f"         share at 0 (none) {sum(v == 0 for v in values) / len(values):.3f}  {shares}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
