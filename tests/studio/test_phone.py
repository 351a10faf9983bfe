"""Studio on a phone (issue 38): at 390 px no page scrolls sideways (the header wraps, the
navigator is a band of links, tables scroll in their own box), and a 150-character word wraps
inside the note instead of running over the links rail at 1280 px."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from tests.studio.conftest import CARD, Studio, logged_in, screenshot
from tests.studio.test_history_diff import write

PHONE = 390
LONG = "digest/wiki/a-rather-long-folder-name/a-long-file-name-for-phones.md"
WORD = "x" * 150
SPLIT_PARTS = """h => {  // the text pieces of the heading that are drawn on more than one line
  const walk = document.createTreeWalker(h, NodeFilter.SHOW_TEXT), split = [];
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const range = document.createRange(); range.selectNodeContents(n);
    if (new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1) split.push(n.data);
  }
  return split;
}"""


def test_every_page_fits_a_phone(browser: Browser, studio: Studio) -> None:
    write(studio, LONG, f"# Long\n\n{WORD}\n\nSee [[Deploy checklist]].\n")
    write(studio, LONG, f"# Long\n\n{WORD}\n\nSee [[Deploy checklist]] again.\n")
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        logged_in(page, studio)
        pages = {
            f"#/note/{CARD}": f"article.note[data-path='{CARD}']",
            f"#/note/{LONG}": f"article.note[data-path='{LONG}']",
            "#/search?q=deploy": "ol.hits li.hit",
            f"#/history/{LONG}": "pre.diff",
            "#/section/cards": "ul.files li",
            "#/health": ".figures",
            "#/graph": "#graph-canvas",
        }
        for address, drawn in pages.items():
            page.goto(f"{studio.url}/{address}")
            page.wait_for_selector(drawn)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE, f"{address} is {width} px wide on a {PHONE} px phone"
        page.goto(f"{studio.url}/#/note/{LONG}")  # the path breaks after a `/`, never in a name
        heading = page.locator(f"article.note[data-path='{LONG}'] h1.note-path")
        expect(heading).to_have_text(LONG)
        assert heading.evaluate(SPLIT_PARTS) == []
        page.goto(f"{studio.url}/#/note/{CARD}")
        expect(page.locator(f"article.note[data-path='{CARD}'] .markdown")).to_be_visible()
        screenshot(page, "phone")
        page.goto(f"{studio.url}/dream")
        page.wait_for_selector("#runs h2")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE
    finally:
        context.close()


def test_a_long_word_wraps_inside_the_note(page: Page, studio: Studio) -> None:
    write(studio, LONG, f"# Long\n\n{WORD}\n")
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/note/{LONG}")
    paragraph = page.locator(f"article.note[data-path='{LONG}'] .markdown p")
    expect(paragraph).to_have_text(WORD)
    text = paragraph.bounding_box()
    rail = page.locator("aside.links").bounding_box()
    assert text and rail and text["x"] + text["width"] <= rail["x"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
