"""The search box and the page agree (issue 38): an address with another query shows that query
in the box (it kept what was typed before) and its results; keys typed just before leaving
search do not pull the page back; leaving search empties the box. And the Dream review page
has Studio's navigation."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.studio.conftest import CARD, DAY, Studio, logged_in


def test_the_box_follows_the_address(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    box = page.locator("#search")
    box.press_sequentially("zebra", delay=30)
    expect(page.locator("ol.hits .hit-path")).to_have_text([CARD])
    page.goto(f"{studio.url}/#/search?q=stg-7")  # the box still has the focus
    expect(page.locator("ol.hits .hit-path")).to_have_text([DAY, "MEMORY.md"])
    expect(box).to_have_value("stg-7")
    expect(page.locator("main h1")).to_contain_text("“stg-7”")

    box.press_sequentially("unship", delay=30)
    page.goto(f"{studio.url}/#/health")  # at once, before the box's pause has passed
    expect(page.locator(".figures")).to_be_visible()
    page.wait_for_timeout(800)
    assert page.url.endswith("#/health")
    expect(box).to_have_value("")


def test_the_dream_page_has_studios_navigation(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    page.goto(f"{studio.url}/dream")
    links = page.locator("header .top-links a")
    expect(links.filter(has_text="Health")).to_have_attribute("href", "/#/health")
    links.filter(has_text="Graph").click()
    expect(page.locator("#graph-canvas")).to_be_visible()


def test_a_weak_hit_says_so(page: Page, studio: Studio) -> None:
    """One rare word of an off-topic query found: the hit is listed, tagged weak (before, the
    best keyword hit of any query read 1.000 like an answer)."""
    logged_in(page, studio)
    page.locator("#search").press_sequentially("zebra weather migration season", delay=30)
    expect(page.locator("ol.hits .hit-path")).to_have_text([CARD])
    expect(page.locator("main h1")).to_contain_text("“zebra weather migration season”")
    expect(page.locator("ol.hits .score .weak")).to_have_text([" weak"])
    page.goto(f"{studio.url}/#/search?q=zebra+command")
    expect(page.locator("main h1")).to_contain_text("“zebra command”")
    expect(page.locator("ol.hits .hit-path")).to_have_text([CARD])
    expect(page.locator("ol.hits .score .weak")).to_have_count(0)
