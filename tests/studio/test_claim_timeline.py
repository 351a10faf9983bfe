"""A claim's timeline in Studio: a node's `## History` drawn as a timeline (when each claim
held, superseded ones struck through with what replaced them and their cards), and the dream
review showing what a run superseded (old claim → new claim, with the dates)."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from remecli.knowledge.dream.runner import dream
from remecli.notes.layout import WorkingDir
from tests.dream.conftest import add_card, extraction, make_settings, receipt, unit
from tests.studio.conftest import Studio, logged_in, seed
from tests.surfaces.helpers import start_surface, surface_settings, wait_until_healthy

NODE = "digest/personal/where-ada-lives.md"
MUNICH_CARD = "memory/2024-05-01/munich.md"
TEXT = f"""---
name: Where Ada lives
description: Ada lives in Berlin
---
Ada lives in Berlin.

## History
- Ada lives in Berlin (since 2026-03-02) [[memory/2026-03-02/berlin.md]]
- ~~Ada lives in Munich~~ (2024-05-01 to 2026-03-02, replaced by "Ada lives in Berlin") \
[[{MUNICH_CARD}]]
- ~~Ada lives in Lyon~~ (until 2024-05-01)

## Sources
- [[MEMORY.md]]
"""


def test_a_nodes_history_is_a_timeline(page: Page, studio: Studio) -> None:
    (studio.root / NODE).parent.mkdir(parents=True, exist_ok=True)
    (studio.root / NODE).write_text(TEXT, encoding="utf-8")
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/note/{NODE}")
    steps = page.locator("article.note ul.claim-timeline li.claim")
    expect(steps).to_have_count(3)
    now, munich, lyon = steps.nth(0), steps.nth(1), steps.nth(2)
    expect(now).to_have_class("claim claim-current")
    expect(now.locator(".claim-when")).to_have_text("since 2026-03-02")
    expect(now.locator(".claim-text")).to_have_text("Ada lives in Berlin")
    expect(now.locator("s")).to_have_count(0)
    expect(munich).to_have_class("claim claim-superseded")
    expect(munich.locator(".claim-when")).to_have_text("2024-05-01 → 2026-03-02")
    expect(munich.locator("s")).to_have_text("Ada lives in Munich")
    expect(munich.locator(".claim-by")).to_have_text("→ replaced by Ada lives in Berlin")
    expect(munich.locator(".claim-cards a")).to_have_attribute("href", f"#/note/{MUNICH_CARD}")
    expect(lyon.locator(".claim-when")).to_have_text("until 2024-05-01")
    expect(lyon.locator(".claim-by")).to_have_count(0)
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: nothing wider than it
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, wide


def test_claims_among_other_bullets_keep_their_list(page: Page, studio: Studio) -> None:
    (studio.root / "MEMORY.md").write_text(
        "# MEMORY\n\n- Likes tea\n- Ada lives in Berlin (since 2026-03-02)\n"
        '- ~~Ada lives in Munich~~ (until 2026-03-02, replaced by "Ada lives in Berlin")\n',
        encoding="utf-8",
    )
    logged_in(page, studio)
    memory = page.locator("article.note[data-path='MEMORY.md'] .markdown")
    expect(memory.locator("li.claim .claim-when")).to_have_text(
        ["since 2026-03-02", "until 2026-03-02"]
    )
    expect(memory.locator("li", has_text="Likes tea")).to_have_count(1)
    expect(memory.locator("ul.claim-timeline")).to_have_count(0)  # not a timeline: bullets stay


D1, D2 = dt.date(2025, 1, 31), dt.date(2025, 2, 3)
ATLAS = "digest/wiki/atlas-database.md"
OLD, NEW = "Atlas stores its data in PostgreSQL 16", "Atlas stores its data in PostgreSQL 17"


def _atlas(claim: str, *cards: str) -> str:
    sources = "".join(f"- [[{card}]]\n" for card in cards)
    return (
        f"---\nname: Atlas database\ndescription: {claim}\n---\n{claim}.\n\n## Sources\n{sources}"
    )


def dream_on(day: dt.date, settings, working_dir: WorkingDir) -> str:
    """A dream run of `day` to its end, in a thread (Playwright's loop runs in this one)."""
    done: list[str] = []
    worker = threading.Thread(
        target=lambda: done.append(asyncio.run(dream(settings, working_dir, date=day)).status)
    )
    worker.start()
    worker.join(120)
    return done[0] if done else "still running"


@pytest.fixture
def corrected(tmp_path: Path, fake_llm) -> Iterator[Studio]:
    """A working dir whose second dream run corrected a node (CREATE, then CORRECT)."""
    root = tmp_path / ".reme"
    seed(root)
    working_dir = WorkingDir(root)
    settings = make_settings(fake_llm, tmp_path).with_changes({"working_dir": str(root)})
    first = add_card(working_dir, D1, "atlas-db", "Atlas DB", "Atlas runs PostgreSQL 16.")
    fake_llm.add_text(extraction([unit("Atlas database", "wiki", OLD, first)]))
    fake_llm.add_tool_calls([("write", {"path": ATLAS, "content": _atlas(OLD, first)})])
    fake_llm.add_text(receipt("CREATE", ATLAS))
    assert dream_on(D1, settings, working_dir) == "done"
    second = add_card(working_dir, D2, "atlas-upgrade", "Upgrade", "Atlas moved to PostgreSQL 17.")
    fake_llm.add_text(extraction([unit("Atlas database", "wiki", NEW, second)]))
    fake_llm.add_tool_calls([("read", {"path": ATLAS})])
    fake_llm.add_tool_calls([("write", {"path": ATLAS, "content": _atlas(NEW, first, second)})])
    fake_llm.add_text(receipt("CORRECT", ATLAS, OLD)[:-1] + f', "claim": "{NEW}"}}')
    assert dream_on(D2, settings, working_dir) == "done"
    server_settings = [*surface_settings(root, fake_llm.base_url), "memory.dream.auto=false"]
    surface = start_surface(["serve", "--port", "0", *server_settings])
    wait_until_healthy(surface.url)
    try:
        yield Studio(surface, root, server_settings)
    finally:
        surface.stop()


def test_the_dream_review_shows_what_a_run_superseded(page: Page, corrected: Studio) -> None:
    logged_in(page, corrected)
    page.goto(corrected.url + "/dream")
    runs = page.locator("#runs ul.files a")
    expect(runs).to_have_count(2)
    runs.first.click()  # the newest: the correction
    node = page.locator(f"section.dream-node[data-path='{ATLAS}']")
    expect(node.locator(".action")).to_have_text("CORRECT")
    gone = node.locator("li.supersession")
    expect(gone).to_have_count(1)
    expect(gone.locator("del")).to_have_text(OLD)
    expect(gone.locator("strong")).to_have_text(NEW)
    expect(gone).to_contain_text("(2025-01-31 → 2025-02-03)")
    runs.last.click()  # the creation superseded nothing
    node = page.locator(f"section.dream-node[data-path='{ATLAS}']")
    expect(node.locator(".action")).to_have_text("CREATE")
    expect(node.locator(".supersessions")).to_have_count(0)
