"""Facts over time in Studio: a node's struck-through History claims render struck, and the
"Changed facts" page lists every superseded claim with what replaced it and a link to it."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.studio.conftest import Studio, logged_in, screenshot

NODE = "digest/personal/where-ada-lives.md"
TEXT = """---
name: Where Ada lives
description: Ada lives in Berlin
---
Ada lives in Berlin.

## History
- Ada lives in Berlin (since 2026-03-02)
- ~~Ada lives in Munich~~ (2024-05-01 to 2026-03-02, replaced by "Ada lives in Berlin") \
[[memory/2024-05-01/munich.md]]

## Sources
- [[MEMORY.md]]
"""


def test_changed_facts_page_and_struck_claims(page: Page, studio: Studio) -> None:
    (studio.root / NODE).parent.mkdir(parents=True, exist_ok=True)
    (studio.root / NODE).write_text(TEXT, encoding="utf-8")
    logged_in(page, studio)
    page.locator("#nav a[data-page='changed']").click()
    fact = page.locator("li.changed-fact")
    expect(fact).to_have_count(1)
    expect(fact.locator("del")).to_have_text("Ada lives in Munich")
    expect(fact.locator("strong")).to_have_text("Ada lives in Berlin")
    expect(fact).to_contain_text("2024-05-01 – 2026-03-02")
    screenshot(page, "changed-facts")
    fact.locator("a.meta").click()
    note = page.locator(f"article.note[data-path='{NODE}']")
    expect(note.locator(".markdown s")).to_have_text(["Ada lives in Munich"])


def test_search_marks_superseded_hits_and_answers_as_of_a_day(page: Page, studio: Studio) -> None:
    card = studio.root / "memory/2024-05-01/munich.md"
    card.parent.mkdir(parents=True, exist_ok=True)
    card.write_text("# Munich\n\nAda lives in Munich, near the Isar.\n", encoding="utf-8")
    (studio.root / NODE).parent.mkdir(parents=True, exist_ok=True)
    (studio.root / NODE).write_text(TEXT, encoding="utf-8")
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/search?q=Ada%20Munich%20Isar")
    card_path = page.locator(".hit-path", has_text="memory/2024-05-01/munich.md")
    hit = page.locator("li.hit").filter(has=card_path)
    expect(hit.locator(".superseded")).to_contain_text("2026-03-02 → Ada lives in Berlin")
    page.locator("#search-as-of").fill("2025-01-01")
    page.locator("#search-as-of").dispatch_event("change")
    expect(page).to_have_url(re.compile(r"as_of=2025-01-01"))
    hit = page.locator("li.hit").filter(has=card_path)
    expect(hit.locator(".hit-claims")).to_contain_text("2025-01-01: Ada lives in Munich")
    expect(hit.locator(".superseded")).to_have_count(0)
