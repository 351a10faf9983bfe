"""A note that is not there (issue 38): a dangling link offers to create the note it names (the
new note then answers the link), and the address of a deleted note offers its history, not an
error about memory_list."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.studio.conftest import WIKI, Studio, logged_in
from tests.studio.test_history_diff import call_api


def test_a_dangling_link_offers_to_create_its_note(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    link = page.locator(".markdown a.wikilink.dangling", has_text="release calendar")
    expect(link).to_have_attribute(
        "href", "#/new?path=digest%2Fwiki%2Frelease-calendar.md&name=release+calendar"
    )
    link.click()
    expect(page.locator("#new-path")).to_have_value("digest/wiki/release-calendar.md")
    expect(page.locator("#source")).to_have_value("# release calendar\n\n")
    page.locator("#create").click()
    expect(
        page.locator("article.note[data-path='digest/wiki/release-calendar.md']")
    ).to_be_visible()
    page.goto(f"{studio.url}/#/note/MEMORY.md")  # the link now leads to the new note
    resolved = page.locator(".markdown a.wikilink", has_text="release calendar")
    expect(resolved).to_have_attribute("href", "#/note/digest/wiki/release-calendar.md")


def test_a_deleted_note_offers_its_history(page: Page, studio: Studio) -> None:
    call_api(studio, "memory_delete", {"path": WIKI})
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/note/{WIKI}")
    missing = page.locator(f".missing-note[data-path='{WIKI}']")
    expect(missing).to_contain_text("was deleted")
    expect(page.locator("main")).not_to_contain_text("Something went wrong")
    missing.locator("#missing-history").click()
    expect(page.locator("table.versions tbody tr[data-version]").first).to_contain_text("deleted")

    page.goto(f"{studio.url}/#/note/digest/wiki/never-written.md")  # never there: create it
    never = page.locator(".missing-note[data-path='digest/wiki/never-written.md']")
    expect(never).to_contain_text("no note here yet")
    assert never.locator("#missing-history").count() == 0
    never.locator("#missing-create").click()
    expect(page.locator("#new-path")).to_have_value("digest/wiki/never-written.md")
