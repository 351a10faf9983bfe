"""Link-graph build time for a 10,000-note working dir, reopen, and one-note incremental updates.

Run:  nice -n 5 python benchmarks/link_graph.py [--files 10000] [--updates 50] [--seed 7]

Generates a working dir of topic cards (frontmatter name/description/source_conversation, a
heading, 15-40 bullet lines, 3-8 wikilinks by name, stem or path, 1 in 5 with code spans or a
fence), day pages linking their cards, and digest nodes; then measures:
  * full build from scratch (parse every note, resolve, persist to index/links.sqlite3),
  * reopen with nothing changed (load the store, stat every file),
  * `update_file` after editing one note (median / p95 over --updates edits),
  * `expand()` of 10 search results (what link expansion adds to one search),
  * a rename retargeting the links of a note with many backlinks.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from remecli.notes.links.expand import expand  # noqa: E402
from remecli.notes.links.graph import LinkGraph  # noqa: E402
from remecli.notes.links.rename import rename  # noqa: E402
from remecli.notes.writer import MemoryWriter  # noqa: E402

WORDS = [
    "deploy",
    "release",
    "rollback",
    "fleet",
    "cache",
    "index",
    "token",
    "budget",
    "editor",
    "vim",
    "tabs",
    "review",
    "ci",
]


def _card(rng: random.Random, index: int, names: list[str], paths: list[str]) -> str:
    links = []
    for _ in range(rng.randint(3, 8)):
        style = rng.random()
        other = rng.randrange(len(names))
        if style < 0.5:
            links.append(f"[[{names[other]}]]")
        elif style < 0.8:
            links.append(f"[[{paths[other]}#L{rng.randint(1, 9)}-L{rng.randint(10, 20)}]]")
        else:
            links.append(f"[[{Path(paths[other]).stem}|see this]]")
    lines = [
        "---",
        f"name: {names[index]}",
        f"description: {' '.join(rng.choices(WORDS, k=10))}",
        f"session_id: s{index}",
        f'source_conversation: "[[sessions/s{index}.jsonl#L1-L40]]"',
        "tags: [bench]",
        "---",
        f"# {names[index]}",
        "",
    ]
    for _ in range(rng.randint(15, 40)):
        words = " ".join(rng.choices(WORDS, k=rng.randint(6, 14)))
        if links and rng.random() < 0.25:
            words += " " + links.pop()
        lines.append(f"- {words}")
    lines += [f"- related {link}" for link in links]
    if rng.random() < 0.2:
        lines += ["", "Run `make ship` then:", "```bash", "echo '[[not a link]]'", "```"]
    return "\n".join(lines) + "\n"


def generate(root: Path, files: int, seed: int) -> None:
    rng = random.Random(seed)
    days = max(1, files // 20)
    paths, names = [], []
    for index in range(files):
        day = f"2025-{1 + index % 12:02d}-{1 + (index // 12) % 28:02d}"
        if index % 10 == 9:
            paths.append(f"digest/wiki/node-{index}.md")
        else:
            paths.append(f"memory/{day}/topic-{index}.md")
        names.append(f"Topic {index} {rng.choice(WORDS)}")
    for index, relative in enumerate(paths):
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_card(rng, index, names, paths), encoding="utf-8")
    by_day: dict[str, list[str]] = {}
    for relative in paths:
        if relative.startswith("memory/"):
            by_day.setdefault(relative.split("/")[1], []).append(relative)
    for day, cards in list(by_day.items())[:days]:
        index = "\n".join(f"- [[{card}]]" for card in cards)
        (root / "memory" / f"{day}.md").write_text(
            f"# {day}\n\n<!-- cards:auto -->\n{index}\n<!-- /cards:auto -->\n", encoding="utf-8"
        )
    (root / "MEMORY.md").write_text(
        "# MEMORY\n" + "".join(f"- [[{names[i]}]]\n" for i in range(0, files, 97)),
        encoding="utf-8",
    )
    (root / "sessions").mkdir()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--updates", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="remecli-links-bench-"))
    root = base / "wd"
    try:
        started = time.perf_counter()
        generate(root, args.files, args.seed)
        total_bytes = sum(p.stat().st_size for p in root.rglob("*.md"))
        print(
            f"generated {args.files} cards + day pages ({total_bytes / 1e6:.1f} MB) in "
            f"{time.perf_counter() - started:.1f} s"
        )

        started = time.perf_counter()
        graph = LinkGraph.open(root)
        build = time.perf_counter() - started
        notes = graph.notes()
        links = sum(len(graph.outlinks(n)) for n in notes)
        dangling = len(graph.dangling())
        graph.close()
        print(
            f"full build: {build:.2f} s for {len(notes)} notes, {links} links "
            f"({dangling} dangling) = {build / len(notes) * 1e3:.2f} ms per note"
        )

        started = time.perf_counter()
        graph = LinkGraph.open(root)
        print(f"reopen, nothing changed: {time.perf_counter() - started:.2f} s")

        rng = random.Random(args.seed + 1)
        timings = []
        for _ in range(args.updates):
            relative = rng.choice(notes)
            path = root / relative
            path.write_text(path.read_text() + f"- edit [[{rng.choice(notes)}]]\n")
            started = time.perf_counter()
            graph.update_file(relative)
            timings.append(time.perf_counter() - started)
        timings.sort()
        p95 = timings[min(len(timings) - 1, int(len(timings) * 0.95))]
        print(
            f"update_file after one edit: median {statistics.median(timings) * 1e3:.2f} ms, "
            f"p95 {p95 * 1e3:.2f} ms ({args.updates} edits)"
        )

        expand_timings = []
        for _ in range(200):
            results = [{"path": rng.choice(notes), "score": 0.5} for _ in range(10)]
            started = time.perf_counter()
            expand(results, graph)
            expand_timings.append(time.perf_counter() - started)
        print(
            f"expand() of 10 search results: median "
            f"{statistics.median(expand_timings) * 1e3:.3f} ms (200 searches)"
        )

        hub = max(notes, key=lambda n: len(graph.backlinks(n)))
        inbound = len(graph.backlinks(hub))
        started = time.perf_counter()
        report = rename(graph, MemoryWriter(root), hub, hub.replace(".md", "-renamed.md"))
        print(
            f"rename of the most linked note ({inbound} backlinks): "
            f"{time.perf_counter() - started:.2f} s, {len(report.rewritten)} notes rewritten"
        )
        graph.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(
        f"command: nice -n 5 python benchmarks/link_graph.py --files {args.files} "
        f"--updates {args.updates} --seed {args.seed}"
    )


if __name__ == "__main__":
    main()
