"""A day page in the browser (issue 38): the `<!-- cards:auto -->` markers around its card index
are not shown as text; the index's links are."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.studio.conftest import CARD, DAY, Studio, logged_in


def test_the_day_page_hides_its_index_markers(page: Page, studio: Studio) -> None:
    (studio.root / DAY).write_text(
        "# 2025-01-31\n\nWe deployed.\n\n<!-- cards:auto -->\n"
        f"- [[{CARD}|Deploy checklist]]: How we ship to staging\n<!-- /cards:auto -->\n",
        encoding="utf-8",
    )
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/note/{DAY}")
    body = page.locator(f"article.note[data-path='{DAY}'] .markdown")
    expect(body.locator("a.wikilink")).to_have_text(["Deploy checklist"])
    expect(body).not_to_contain_text("cards:auto")
    expect(body).not_to_contain_text("<!--")
