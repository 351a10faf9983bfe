"""List facts spread over sessions: is every piece in what one search returns, before and after
Auto Dream gathers them into one digest node?

A script writes its own memory (seeded): each of N people names three hobbies, one per
conversation, weeks apart; each is told in that day's topic card among unrelated lines (other
people's cards mention other hobbies). Question: "what are X's hobbies" through the
`memory_search` operation (one search, top `--top` hits); a question counts when every one of
the three hobbies is named in the hits' lines. Measured on the cards alone, then after a digest
node per person lists all three with its cards under `## Sources` — the node dream's REFINE
writes, built by the same provenance code (`knowledge/dream/digest.with_provenance`) as a
scripted model would drive it.

Reproduce:  python benchmarks/facts_lists.py [--people 60] [--top 5] [--embedding local]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parents[1]))  # PYTHONPATH=<checkout> wins

from benchmarks.facts_over_time import FILLER, NAMES, node_text, slug  # noqa: E402
from remecli.config.settings import Settings  # noqa: E402
from remecli.knowledge.dream.digest import with_provenance  # noqa: E402
from remecli.ops import JobRunner  # noqa: E402

HOBBIES = [
    "bouldering", "pottery", "chess", "birdwatching", "sailing", "origami", "fencing",
    "beekeeping", "calligraphy", "kayaking", "juggling", "astronomy", "knitting", "archery",
]  # fmt: skip


def write_cards(root: Path, people: int, seed: int) -> list[dict[str, Any]]:
    """Three cards per person, one hobby each, weeks apart; each person's hobbies and cards."""
    rng = random.Random(seed)
    everyone = []
    for name in NAMES[:people]:
        hobbies = rng.sample(HOBBIES, 3)
        day = dt.date(2025, 1, 1) + dt.timedelta(days=rng.randint(0, 60))
        cards = []
        for number, hobby in enumerate(hobbies):
            other = rng.choice([n for n in NAMES[:people] if n != name])
            card = f"memory/{day:%Y-%m-%d}/{slug(name)}-weekend-{number}.md"
            (root / card).parent.mkdir(parents=True, exist_ok=True)
            (root / card).write_text(
                f"---\nname: {name}'s weekend\ndescription: What {name} did.\n---\n"
                f"# {name}'s weekend\n\n## Current\n- {name} spent the weekend on {hobby}; "
                f"it is one of {name}'s hobbies.\n- {rng.choice(FILLER)}\n"
                f"- {other} tried {rng.choice(HOBBIES)} once.\n",
                encoding="utf-8",
            )
            cards.append(card)
            day += dt.timedelta(weeks=rng.randint(2, 8))
        everyone.append({"name": name, "hobbies": hobbies, "cards": cards, "day": day})
    return everyone


def gather(root: Path, everyone: list[dict[str, Any]]) -> None:
    """The digest node a dream's REFINE leaves for each person: all three hobbies, with cards."""
    for person in everyone:
        name, hobbies, cards = person["name"], person["hobbies"], person["cards"]
        rel = f"digest/personal/{slug(name)}-hobbies.md"
        claim = f"{name}'s hobbies are {', '.join(hobbies[:-1])} and {hobbies[-1]}"
        text = node_text(f"{name}'s hobbies", claim, f"{claim}.", cards)
        text = with_provenance(rel, text, None, action="CREATE", cards=cards, today=person["day"])
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def _text(root: Path, hit: dict[str, Any]) -> str:
    lines = (root / hit["path"]).read_text(encoding="utf-8").splitlines()
    return " ".join(lines[hit["start_line"] - 1 : hit["end_line"]])


async def share_complete(
    root: Path, everyone: list[dict[str, Any]], embedding: str, top: int
) -> tuple[int, int]:
    """How many people's three hobbies are all in the hits of one search, of how many."""
    settings = Settings(working_dir=str(root)).with_changes(
        {"search.embedding.backend": embedding, "search.watch": False}
    )
    runner = JobRunner.from_settings(settings)
    await runner.start(wait_for_index=True)
    complete = 0
    try:
        await runner.run("memory_reindex", {})
        for person in everyone:
            query = {"query": f"what are {person['name']}'s hobbies", "max_results": top}
            hits = (await runner.run("memory_search", query))["results"]
            seen = " ".join(_text(root, hit) for hit in hits)
            complete += all(hobby in seen for hobby in person["hobbies"])
    finally:
        await runner.close()
    return complete, len(everyone)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--top", type=int, default=5, help="hits one search returns")
    parser.add_argument("--embedding", default="local", help="local (the default) or none")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / ".reme"
        everyone = write_cards(root, min(args.people, len(NAMES)), args.seed)
        print(f"list facts: {len(everyone)} people, 3 hobbies each in 3 cards weeks apart, "
              f"top {args.top}, embedding={args.embedding}")  # fmt: skip
        before = asyncio.run(share_complete(root, everyone, args.embedding, args.top))
        gather(root, everyone)
        after = asyncio.run(share_complete(root, everyone, args.embedding, args.top))
    for label, (good, total) in (("cards only", before), ("after gathering", after)):
        print(f"  {label:<16} {good / max(total, 1):.3f}  ({good}/{total} with every hobby)")
    print(f"  ({time.perf_counter() - started:.0f} s)  reproduce: python {' '.join(sys.argv)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
