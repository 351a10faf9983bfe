"""Browsing in a real browser: the navigator filtered by project and tag (frontmatter), the
Interests page (Auto Dream's topics, read only), light and dark, and the UI in Chinese
(`language=zh`)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.studio.conftest import CARD, Studio, logged_in, screenshot, seed
from tests.surfaces.helpers import start_surface, surface_settings, wait_until_healthy

BILLING = "memory/2025-01-31/billing-export.md"
INTERESTS = """date: '2025-01-31'
topics:
- title: Safer deploys
  reason: You asked twice how to roll back.
  evidence:
  - Deploy checklist
  - nowhere yet
  keywords: [rollback, staging]
"""
DARK_BACKGROUND = "rgb(23, 25, 28)"
LIGHT_BACKGROUND = "rgb(251, 251, 250)"


def _background(page: Page) -> str:
    return str(page.evaluate("getComputedStyle(document.body).backgroundColor"))


def test_filters_interests_and_theme(page: Page, studio: Studio) -> None:
    (studio.root / BILLING).write_text(
        "---\nname: Billing export\nproject: ledger\ntags: billing, export\n---\n# Billing\n"
    )
    (studio.root / "memory/2025-01-31/interests.yaml").write_text(INTERESTS)
    logged_in(page, studio)
    page.locator("#nav a[data-section='cards']").click()
    files = page.locator("ul.files li a")
    expect(files).to_have_count(2)
    page.locator("#filter-project").select_option("ledger")
    expect(files).to_have_text(["Billing export"])  # the title; the path below it
    assert "project=ledger" in page.url
    page.locator("#filter-project").select_option("")
    page.locator("#filter-tag").select_option("deploy")
    expect(files).to_have_text(["Deploy checklist"])
    expect(page.locator("ul.files li .path")).to_have_text(["2025-01-31/deploy-checklist.md"])
    expect(page.locator("#filter-tag option")).to_have_text(
        ["All tags", "billing (1)", "deploy (1)", "export (1)", "staging (1)"]
    )
    screenshot(page, "filters")

    page.locator("#nav a[data-page='interests']").click()
    topic = page.locator(".interest-day[data-date='2025-01-31'] li.topic")
    expect(topic.locator(".topic-title")).to_have_text("Safer deploys")
    expect(topic.locator(".topic-reason")).to_have_text("You asked twice how to roll back.")
    expect(topic.locator(".topic-keywords .chip")).to_have_text(["rollback", "staging"])
    expect(topic.locator(".topic-evidence a.wikilink")).to_have_attribute("href", f"#/note/{CARD}")
    expect(topic.locator(".topic-evidence .dangling")).to_have_text("nowhere yet")
    screenshot(page, "interests")

    page.emulate_media(color_scheme="light")
    theme = page.locator("#theme")
    expect(theme).to_have_text("Theme: auto")
    assert _background(page) == LIGHT_BACKGROUND
    page.emulate_media(color_scheme="dark")  # auto follows the system
    page.wait_for_function(
        f"getComputedStyle(document.body).backgroundColor === '{DARK_BACKGROUND}'"
    )
    theme.click()
    expect(theme).to_have_text("Theme: light")
    assert _background(page) == LIGHT_BACKGROUND  # chosen light beats the system's dark
    theme.click()
    expect(theme).to_have_text("Theme: dark")
    page.emulate_media(color_scheme="light")
    page.goto(f"{studio.url}/#/note/{CARD}")
    page.reload()  # remembered in this browser
    expect(page.locator("#theme")).to_have_text("Theme: dark")
    assert _background(page) == DARK_BACKGROUND
    expect(page.locator(f"article.note[data-path='{CARD}']")).to_be_visible()
    screenshot(page, "dark")


def test_the_ui_speaks_chinese_with_language_zh(page: Page, tmp_path: Path, fake_llm) -> None:
    root = tmp_path / ".reme"
    seed(root)
    settings = [*surface_settings(root, fake_llm.base_url), "language=zh"]
    surface = start_surface(["serve", "--port", "0", *settings])
    try:
        wait_until_healthy(surface.url)
        logged_in(page, Studio(surface, root, settings))
        assert page.locator("html").get_attribute("lang") == "zh"
        nav = page.locator("#nav")
        expect(nav.locator("a[data-section='cards'] span").first).to_have_text("卡片")
        expect(nav.locator("a[data-page='health']")).to_have_text("索引状态")
        expect(nav.locator("a[data-page='graph']")).to_have_text("关系图")
        expect(page.locator("#search")).to_have_attribute("placeholder", "搜索记忆…  ( / )")
        expect(page.locator(".links")).to_contain_text("反向链接")
        page.goto(f"{surface.url}/#/note/{CARD}")
        expect(page.locator(f"article.note[data-path='{CARD}'] a.button").first).to_have_text(
            "编辑"
        )
        page.goto(f"{surface.url}/dream")  # the dream review page too (it was English only)
        assert page.locator("html").get_attribute("lang") == "zh"
        expect(page.locator("#runs h2")).to_have_text("整理记录")
        expect(page.locator("#runs")).to_contain_text("还没有整理记录。")
        expect(page.locator("header a[aria-current='page']")).to_have_text("梦境审阅")
        expect(page.locator("#main")).to_contain_text("左侧列出了每次 Auto Dream 整理")
    finally:
        surface.stop()


def test_the_language_is_switched_in_the_page(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    nav = page.locator("#nav")
    expect(nav.locator("a[data-section='cards'] span").first).to_have_text("Cards")
    language = page.locator("#language")
    expect(language).to_have_value("en")  # the server's setting
    language.select_option("zh")
    expect(nav.locator("a[data-section='cards'] span").first).to_have_text("卡片")
    expect(page.locator("#search")).to_have_attribute("placeholder", "搜索记忆…  ( / )")
    assert page.locator("html").get_attribute("lang") == "zh"
    page.goto(f"{studio.url}/#/health")
    page.reload()  # remembered in this browser
    expect(page.locator("#nav a[data-page='health']")).to_have_text("索引状态")
    expect(page.locator("#language")).to_have_value("zh")
    page.locator("#language").select_option("en")
    expect(page.locator("#nav a[data-page='health']")).to_have_text("Health")


def test_a_note_of_ones_own_under_memory_is_listed_under_notes(page: Page, studio: Studio) -> None:
    """A note written under memory/ that is neither a day page nor a card (by the user, the
    agent, an MCP client: `memory/notes/…`) was in no section: only search found it."""
    (studio.root / "memory/notes").mkdir(parents=True)
    (studio.root / "memory/notes/runbook.md").write_text("---\nname: Runbook\n---\n# Runbook\n")
    logged_in(page, studio)
    nav = page.locator("#nav")
    expect(nav.locator("a[data-section='notes'] .count")).to_have_text("1")
    expect(nav.locator("a[data-section='cards'] .count")).to_have_text("1")  # the card, alone
    expect(nav.locator("a[data-section='days'] .count")).to_have_text("1")
    nav.locator("a[data-section='notes']").click()
    expect(page.locator("ul.files li a")).to_have_text(["Runbook"])
    expect(page.locator("ul.files li .path")).to_have_text(["memory/notes/runbook.md"])
