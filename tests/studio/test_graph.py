"""The Graph page in a real browser: the digest's link graph drawn on a canvas with the
contradicted node marked, the whole memory, a note's neighbourhood (Shift+click, or the note
page's Graph button), and a click on a node that opens the note (memory_graph underneath)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.studio.conftest import CARD, WIKI, Studio, logged_in, screenshot

TOPICS = ("deploy", "rollback", "staging", "release", "oncall", "metrics", "backup", "secrets")
KINDS = ("procedure", "wiki", "personal")
OLD = "digest/procedure/deploy-by-hand.md"


def digest_node(name: str, links: list[str], status: str = "active") -> str:
    body = "".join(f"- See [[{target}]].\n" for target in links)
    return (
        f"---\nname: {name}\ndescription: About {name}\nkind: wiki\nsources: 1\n"
        f"status: {status}\n---\n# {name}\n\n{body}"
    )


def grow_digest(root: Path) -> list[str]:
    """Two dozen digest nodes linked in a few clusters, one contradicted; their paths."""
    paths = []
    for number, topic in enumerate(TOPICS):
        for part, kind in enumerate(KINDS):
            path = f"digest/{kind}/{topic}-{part}.md"
            links = [f"{topic}-{(part + 1) % len(KINDS)}", "Wiki deploy"]
            if number:
                links.append(f"{TOPICS[number - 1]}-{part}")
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(digest_node(f"{topic} {kind}", links), encoding="utf-8")
            paths.append(path)
    text = digest_node("Deploy by hand", ["Wiki deploy", "rollback-0"], status="contradicted")
    (root / OLD).write_text(text, encoding="utf-8")
    return [*paths, OLD, WIKI]


def settled(page: Page) -> None:
    expect(page.locator("#graph-canvas[data-settled]")).to_be_attached(timeout=30_000)


def click_node(page: Page, path: str, shift: bool = False) -> None:
    spot = page.locator("#graph-canvas").evaluate("(c, p) => c.studioGraph.screenOf(p)", path)
    assert spot is not None, f"{path} is not drawn"
    if shift:
        page.keyboard.down("Shift")
    page.mouse.click(spot["x"], spot["y"])
    if shift:
        page.keyboard.up("Shift")


def test_graph_marks_contradicted_focuses_and_opens_a_note(page: Page, studio: Studio) -> None:
    digest = grow_digest(studio.root)
    logged_in(page, studio)
    page.locator("#nav a[data-page='graph']").click()
    canvas = page.locator("#graph-canvas")
    expect(canvas).to_have_attribute("data-nodes", str(len(digest)))
    settled(page)
    expect(page.locator(".graph-summary")).to_contain_text("1 contradicted")
    expect(page.locator(".graph-contradicted a")).to_have_text(["Deploy by hand"])
    expect(page.locator(".graph-legend")).to_contain_text("contradicted")
    screenshot(page, "graph")

    page.locator("a[data-scope='all']").click()  # the whole memory: cards, days, MEMORY.md
    expect(canvas).to_have_attribute("data-nodes", str(len(digest) + 3))
    settled(page)

    click_node(page, WIKI, shift=True)  # its neighbourhood, one hop either way
    expect(page.locator(".graph-head h1")).to_contain_text(WIKI)
    neighbours = 1 + len(TOPICS) * len(KINDS) + 2  # itself, every node, the card, the old one
    expect(canvas).to_have_attribute("data-nodes", str(neighbours))
    assert "focus=" in page.url and "depth=1" in page.url
    settled(page)
    click_node(page, CARD)
    expect(page.locator(f"article.note[data-path='{CARD}']")).to_be_visible()

    page.locator("#note-graph").click()  # the note's own neighbourhood, from its page
    expect(page.locator(".graph-head h1")).to_contain_text(CARD)
    page.locator("#graph-depth").select_option("2")
    expect(canvas).to_have_attribute("data-nodes", str(len(digest) + 3), timeout=20_000)
    settled(page)
    click_node(page, OLD)
    expect(page.locator(f"article.note[data-path='{OLD}'] .fields")).to_contain_text("contradicted")
