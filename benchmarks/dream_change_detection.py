"""Dream's change detection: what finding new cards costs when most cards are unchanged.

Builds N topic cards over 100 days, consolidates nothing but records every card in the dream
catalog (as a successful run would), then measures, best of `--runs`:
- the first scan (every card read and hashed, as on a first dream);
- `dream_due` with nothing new (file stats only, no card read);
- `changed_cards` after K cards changed (only those K are read).

Reproduce:  nice -n 5 python benchmarks/dream_change_detection.py [--cards 10000] [--changed 20]
"""

from __future__ import annotations

import argparse
import datetime as dt
import tempfile
import time
from pathlib import Path


def best(runs: int, fn) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    from remecli.config.settings import Settings
    from remecli.knowledge.cards.card import apply_card_fields
    from remecli.knowledge.dream.runner import dream_due
    from remecli.knowledge.dream.state import Catalog, changed_cards
    from remecli.notes.layout import WorkingDir

    with tempfile.TemporaryDirectory() as tmp:
        wd = WorkingDir(Path(tmp) / ".reme").ensure()
        settings = Settings(working_dir=str(wd.root))
        start = dt.date(2025, 1, 1)
        paths = []
        for n in range(args.cards):
            day = start + dt.timedelta(days=n % 100)
            text = (
                f"---\nname: Topic {n}\ndescription: What conversation {n} settled, in a line.\n"
                f"---\n# Topic {n}\n\n## Timeline\n"
                + "".join(f"- 10:{m:02d} entry {m}\n" for m in range(20))
            )
            path = wd.memory_dir / f"{day:%Y-%m-%d}" / f"topic-{n}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(apply_card_fields(text, session_id=f"s{n}", day=day, lines=(1, 9)))
            paths.append(path)

        first = time.perf_counter()
        catalog = Catalog.load(wd)
        cards = changed_cards(wd, catalog)
        first = time.perf_counter() - first
        for card in cards:
            catalog.record(card)
        catalog.last_success = "2000-01-01T00:00:00+00:00"
        catalog.save()

        idle, due = best(args.runs, lambda: dream_due(settings, wd))
        for path in paths[: args.changed]:
            path.write_text(path.read_text() + "- 11:00 one more entry\n")
        changed, found = best(args.runs, lambda: changed_cards(wd, Catalog.load(wd)))

    print(f"cards: {args.cards}")
    print(f"first scan (read + hash all): {first * 1000:.0f} ms")
    print(f"dream_due, nothing new (stats only): {idle * 1000:.0f} ms -> due={due}")
    print(f"changed_cards, {args.changed} changed: {changed * 1000:.0f} ms -> {len(found)} read")
    print(f"ratio first scan / idle check: {first / idle:.1f}x")
    print(
        "command: nice -n 5 python benchmarks/dream_change_detection.py "
        f"--cards {args.cards} --changed {args.changed} --runs {args.runs}"
    )


if __name__ == "__main__":
    main()
