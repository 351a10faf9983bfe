"""Studio at scale, in the distribution's headless Chromium driven by Playwright, against a real
`remecli serve` process on a generated working dir (default 10,000 notes: 2,000 digest nodes
linked to each other and to their cards, ~3% contradicted, the rest cards and day pages).
Search is keyword-only (`search.embedding.backend=none`: embedding 10k files here would take
hours, and the page's cost is the same whatever the search costs). The server watches the
working dir as `remecli studio` does (`--no-watch`: `search.watch=false`, so every link query
stats the note folders and lists again those that changed). Reported:

1. first meaningful paint of the navigator: a (re)load of `/` until the navigator shows its
   counts and MEMORY.md is rendered (the page's own clock), over `--reloads` loads;
2. search as you type, per keystroke: every prefix of `--queries` queries sent to the API the
   page calls (`GET /studio/api/search?q=…`, fetched from the page, with its session cookie),
   p50/p95; and through the real page, the time from the last keystroke typed into the box until
   its hits are drawn (this includes the box's 250 ms pause before it searches);
3. a note page (a digest node, a card, a day page, MEMORY.md): from setting its address until
   it is drawn with its links and backlinks, over `--pages` notes;
4. the graph of the digest's 2,000 nodes: from opening `#/graph` until the first frame is drawn
   and answers the pointer (time to interactive; the layout then goes on settling a few steps
   per frame), until it settles, and the longest frame meanwhile;
5. the server's RSS after start (index built) and at the end.

    python benchmarks/studio.py [--notes 10000] [--digest 2000] [--reloads 5] [--queries 12]
                                [--pages 8] [--no-watch]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from search_scale import make_vocabulary  # noqa: E402
from serve_process import rss_mb, served, wait_for_index  # noqa: E402

from remecli.surfaces.studio.access import login_url  # noqa: E402

SETTINGS = [
    "search.embedding.backend=none",
    "memory.summarize=false",
    "memory.dream.auto=false",
]
KINDS = ("personal", "procedure", "wiki")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def sentence(rng: random.Random, vocab: list[str], weights: list[float]) -> str:
    return " ".join(rng.choices(vocab, weights=weights, k=rng.randint(8, 16))).capitalize() + "."


def write_memory(root: Path, notes: int, digest: int, seed: int = 11) -> list[str]:
    """`digest` linked digest nodes, then cards (a few per day, each cited by a node) and day
    pages up to `notes` notes in all, and MEMORY.md; returns the vocabulary."""
    rng = random.Random(seed)
    vocab = make_vocabulary(rng)
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    cards_total = max(0, notes - digest - 1)
    days = max(1, cards_total // 20)
    cards_total -= days
    card_paths = []
    for n in range(cards_total):
        day = (dt.date(2020, 1, 1) + dt.timedelta(days=n % days)).isoformat()
        card_paths.append(f"memory/{day}/card-{n:05d}.md")
    node_paths = [f"digest/{KINDS[n % 3]}/node-{n:05d}.md" for n in range(digest)]
    for n, path in enumerate(node_paths):
        links = {f"node-{rng.randrange(n):05d}" for _ in range(min(n, rng.randint(1, 3)))}
        sources = rng.sample(card_paths, k=min(2, len(card_paths)))
        status = "contradicted" if rng.random() < 0.03 else "active"
        text = (
            f"---\nname: Node {n} {rng.choice(vocab)}\ndescription: {sentence(rng, vocab, weights)}"
            f"\nkind: {KINDS[n % 3]}\nsources: {len(sources)}\nstatus: {status}\n---\n"
            + "\n".join(sentence(rng, vocab, weights) for _ in range(3))
            + "\n\nSee "
            + ", ".join(f"[[{link}]]" for link in sorted(links))
            + ".\n\n## Sources\n"
            + "".join(f"- [[{source}]]\n" for source in sources)
        )
        write(root / path, text)
    for n, path in enumerate(card_paths):
        text = (
            f"---\nname: Card {n}\ndescription: {sentence(rng, vocab, weights)}\n"
            f"tags: [{rng.choice(vocab)}]\n---\n# Card {n}\n\n"
            + "\n".join(sentence(rng, vocab, weights) for _ in range(rng.randint(3, 8)))
            + "\n"
        )
        write(root / path, text)
    by_day: dict[str, list[str]] = {}
    for path in card_paths:
        by_day.setdefault(path.split("/")[1], []).append(path)
    for day, paths in by_day.items():
        lines = [f"# {day}", "", sentence(rng, vocab, weights), ""]
        lines += [f"- [[{p}]]" for p in paths]
        write(root / "memory" / f"{day}.md", "\n".join(lines) + "\n")
    write(root / "MEMORY.md", "# MEMORY\n\n- Start at [[node-00000]].\n")
    return vocab


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def count_notes(root: Path) -> int:
    return sum(1 for _ in root.rglob("*.md"))


# The page's CSP forbids eval, which Playwright's wait_for_function needs: these poll each frame
# inside evaluate (run through the DevTools protocol) and answer the page's clock.
UNTIL_SHOWN = """async (selectors) => {
  while (!selectors.every((s) => document.querySelector(s)))
    await new Promise((r) => requestAnimationFrame(r));
  return performance.now();
}"""
UNTIL_HITS = """async (query) => {
  const wanted = new URLSearchParams({ q: query }).toString();
  const drawn = () => (document.querySelector("main h1")?.textContent || "").startsWith("Search");
  while (!(location.hash.includes(wanted) && drawn()))
    await new Promise((r) => requestAnimationFrame(r));
  return performance.now();
}"""
NAVIGATOR = ["#nav a[data-section='cards'] .count", "article.note[data-path='MEMORY.md']"]


def navigator_paint(page: Page, reloads: int) -> list[float]:
    """ms from each load's start until the navigator's counts and MEMORY.md are drawn."""
    times = []
    for _ in range(reloads):
        page.reload(wait_until="commit")
        times.append(page.evaluate(UNTIL_SHOWN, NAVIGATOR))
    return times


API_KEYSTROKES = """async (queries) => {
  const times = [];
  for (const query of queries) {
    for (let end = 1; end <= query.length; end++) {
      const start = performance.now();
      const answer = await fetch(`/studio/api/search?q=${encodeURIComponent(query.slice(0, end))}`);
      await answer.json();
      times.push(performance.now() - start);
    }
  }
  return times;
}"""


def typed_in_page(page: Page, queries: list[str]) -> list[float]:
    """ms from the last keystroke typed into the box until its hits are drawn."""
    times = []
    box = page.locator("#search")
    for query in queries:
        box.fill("")
        page.evaluate("location.hash = '#/'")
        page.wait_for_selector("article.note[data-path='MEMORY.md']")
        box.press_sequentially(query, delay=60)
        start = page.evaluate("performance.now()")
        times.append(page.evaluate(UNTIL_HITS, query) - start)
    return times


UNTIL_NOTE = """async (path) => {
  const start = performance.now();
  location.hash = "#/note/" + encodeURI(path);
  const drawn = `article.note[data-path="${CSS.escape(path)}"]`;
  while (!document.querySelector(drawn)) await new Promise((r) => requestAnimationFrame(r));
  return performance.now() - start;
}"""


def note_pages(page: Page, paths: list[str]) -> list[float]:
    """ms from setting each note's address until it is drawn with its links and backlinks."""
    return [page.evaluate(UNTIL_NOTE, path) for path in paths]


def sample_notes(root: Path, count: int) -> list[str]:
    """MEMORY.md, the most linked digest node, then digest nodes, cards and day pages."""
    digest = sorted(p.relative_to(root).as_posix() for p in root.glob("digest/*/*.md"))
    cards = sorted(p.relative_to(root).as_posix() for p in root.glob("memory/*/*.md"))
    days = sorted(p.relative_to(root).as_posix() for p in root.glob("memory/*.md"))
    rng = random.Random(3)
    picks = ["MEMORY.md", digest[0]] if digest else ["MEMORY.md"]
    groups = [group for group in (digest, cards, days) if group]
    while len(picks) < min(count, len(digest) + len(cards) + len(days) + 1):
        pick = rng.choice(groups[len(picks) % len(groups)])
        if pick not in picks:  # the same address twice would not load anything
            picks.append(pick)
    return picks[:count]


def graph_open(page: Page) -> dict[str, float]:
    """ms to the graph's first frame (interactive) and to rest, its longest frame, node count."""
    page.evaluate("location.hash = '#/'")
    page.wait_for_selector("article.note[data-path='MEMORY.md']")
    start = page.evaluate("performance.now()")
    page.evaluate("location.hash = '#/graph?scope=digest'")
    canvas = page.locator("#graph-canvas[data-ready-at]")
    canvas.wait_for(timeout=300_000)
    page.locator("#graph-canvas[data-settled-at]").wait_for(timeout=600_000)
    found = canvas.evaluate(
        "c => ({nodes: +c.dataset.nodes, ready: +c.dataset.readyAt, settled: +c.dataset.settledAt,"
        " longest: +c.dataset.longestFrame, median: +c.dataset.medianFrame,"
        " frames: +c.dataset.frames})"
    )
    return {
        "nodes": found["nodes"],
        "interactive": found["ready"] - start,
        "settled": found["settled"] - start,
        "longest": found["longest"],
        "frames": found["frames"],
        "median": found["median"],
    }


def queries_from(vocab: list[str], count: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.sample(vocab[:400], 2)) for _ in range(count)]


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--digest", type=int, default=2_000)
    parser.add_argument("--reloads", type=int, default=5)
    parser.add_argument("--queries", type=int, default=12)
    parser.add_argument("--pages", type=int, default=8)
    parser.add_argument("--no-watch", action="store_true", help="search.watch=false")
    args = parser.parse_args()
    command = "python benchmarks/studio.py " + " ".join(sys.argv[1:])
    with tempfile.TemporaryDirectory(prefix="remecli-studio-", ignore_cleanup_errors=True) as tmp:
        workdir = Path(tmp) / ".reme"
        started = time.monotonic()
        vocab = write_memory(workdir, args.notes, args.digest)
        print(f"wrote {count_notes(workdir)} notes in {time.monotonic() - started:.0f} s")
        settings = SETTINGS + ["search.watch=false"] * args.no_watch
        with served(["serve", "--port", "0"], workdir, settings) as (proc, url):
            token = (workdir / "serve.token").read_text().strip()
            print(f"index ready after {wait_for_index(url, token, 3600, poll=0.5):.0f} s")
            rss_start = rss_mb(proc)
            notes = sample_notes(workdir, args.pages)
            measure(url, token, vocab, notes, args, proc, rss_start)
    print(f"command: {command}")


def measure(
    url: str, token: str, vocab: list[str], notes: list[str], args, proc, rss_start: float
) -> None:
    queries = queries_from(vocab, args.queries)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        page.set_default_timeout(120_000)
        page.goto(login_url(url, token))
        page.wait_for_selector("article.note[data-path='MEMORY.md']", timeout=300_000)
        paint = navigator_paint(page, args.reloads)
        keystrokes = page.evaluate(API_KEYSTROKES, queries)
        typed = typed_in_page(page, queries[:5])
        pages = note_pages(page, notes)
        graph = graph_open(page)
        browser.close()
    watching = "not watching" if args.no_watch else "watching"
    print(
        f"\nStudio on {args.notes} notes ({args.digest} digest nodes), 2-core machine, "
        f"server {watching} the working dir:"
    )
    print(
        f"  navigator first meaningful paint: median {statistics.median(paint):.0f} ms "
        f"(min {min(paint):.0f}, max {max(paint):.0f}; {len(paint)} loads)"
    )
    print(
        f"  search per keystroke (API the page calls, {len(keystrokes)} prefixes): "
        f"p50 {pct(keystrokes, 50):.0f} ms, p95 {pct(keystrokes, 95):.0f} ms"
    )
    print(
        f"  search through the page (last key -> hits drawn, incl. 250 ms pause): "
        f"median {statistics.median(typed):.0f} ms, max {max(typed):.0f} ms"
    )
    print(
        f"  a note page (address -> drawn with links and backlinks, {len(pages)} notes): "
        f"median {statistics.median(pages):.0f} ms, max {max(pages):.0f} ms"
    )
    print(
        f"  graph of {graph['nodes']:.0f} nodes: interactive {graph['interactive']:.0f} ms, "
        f"settled {graph['settled']:.0f} ms (layout in a worker); a frame drawn in "
        f"median {graph['median']:.0f} ms, longest {graph['longest']:.0f} ms "
        f"({graph['frames']:.0f} frames)"
    )
    print(f"  server RSS: {rss_start:.0f} MB after start, {rss_mb(proc):.0f} MB at the end")


if __name__ == "__main__":
    main()
