"""Studio's pages in a real browser: navigate to a card and follow its wikilinks, search as you
type and open a hit at its line, edit and save, a save that meets a change on disk, history and
restore. Every page goes through the operations layer; the files on disk are the judge."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.studio.conftest import CARD, DAY, WIKI, Studio, logged_in, screenshot


def test_navigate_to_a_card_and_follow_its_links(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    nav = page.locator("#nav")
    expect(nav.locator("a[data-section='cards'] .count")).to_have_text("1")
    expect(nav.locator("a[data-section='days'] .count")).to_have_text("1")
    expect(nav.locator("a[data-section='sessions'] .count")).to_have_text("1")
    home = page.locator(".markdown")
    expect(home.locator("a.wikilink.dangling")).to_have_text("release calendar")
    nav.locator("a[data-section='cards']").click()
    page.locator(f"ul.files a[href='#/note/{CARD}']").click()

    note = page.locator(f"article.note[data-path='{CARD}']")
    expect(note.locator(".fields")).to_contain_text("How we ship to staging")
    expect(note.locator(".fields a.wikilink")).to_have_attribute(
        "href", "#/note/sessions/s1.jsonl?line=1"
    )
    expect(note.locator(".markdown")).to_contain_text("<b>now</b>")  # raw HTML stays text
    assert note.locator(".markdown b").count() == 0
    expect(page.locator(".links")).to_contain_text("Backlinks")
    expect(page.locator(".links section").first.locator("a")).to_have_text(
        ["MEMORY", "Wiki deploy"]
    )
    screenshot(page, "note")

    nav.locator("a[data-section='digest']").click()
    expect(page.locator("main h2.group")).to_have_text(["wiki"])  # the digest by kind
    page.go_back()
    note.locator(".markdown a.wikilink", has_text="Wiki deploy").click()
    expect(page.locator(f"article.note[data-path='{WIKI}'] h1").first).to_have_text(WIKI)
    page.locator(".markdown a.wikilink", has_text="Deploy checklist").click()
    expect(page.locator(f"article.note[data-path='{CARD}']")).to_be_visible()


def test_search_as_you_type_opens_the_hit_at_its_line(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    page.locator("#search").press_sequentially("unship", delay=40)
    hits = page.locator("ol.hits li.hit")
    expect(hits.locator(".hit-path")).to_have_text([CARD, DAY], ignore_case=False)
    hit = hits.filter(has_text=CARD)
    expect(hit.locator(".snippet")).to_contain_text("zebra")
    screenshot(page, "search")
    page.locator("#search-source").select_option("transcripts")  # notes left out
    expect(page.locator("main")).to_contain_text("Nothing found")
    assert "source=transcripts" in page.url
    page.locator("#search-source").select_option("notes")
    hit.locator("a").click()
    marked = page.locator(f"article.note[data-path='{CARD}'] .target-line")
    expect(marked.first).to_have_text("Rollback")  # the hit's lines: its section
    expect(marked.last).to_contain_text("zebra")
    assert "line=14" in page.url


def test_edit_with_preview_and_save(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/edit/{CARD}")
    source = page.locator("#source")
    expect(source).to_have_value((studio.root / CARD).read_text())
    source.fill(source.input_value().replace("Run the tests.", "Run **all** the tests."))
    expect(page.locator(".preview strong")).to_have_text("all")
    screenshot(page, "editor")
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.locator("a.button", has_text="Cancel").click()  # unsaved: asks, and stays
    for _ in range(200):  # the dialog event can reach the handler after click() returned
        if asked:
            break
        page.wait_for_timeout(50)
    expect(source).to_be_visible()
    assert asked and "unsaved changes" in asked[0]
    assert "Run **all** the tests." in source.input_value()
    page.locator("#save").click()
    expect(page.locator(f"article.note[data-path='{CARD}'] .markdown strong")).to_have_text("all")
    expect(page.locator("#status")).to_contain_text("Saved")
    assert "Run **all** the tests." in (studio.root / CARD).read_text()


def test_save_after_a_change_on_disk_shows_the_conflict(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/edit/{CARD}")
    source = page.locator("#source")
    expect(source).to_have_value((studio.root / CARD).read_text())
    theirs = (studio.root / CARD).read_text() + "\nAdded by an agent meanwhile.\n"
    (studio.root / CARD).write_text(theirs)
    source.fill(source.input_value().replace("Run the tests.", "Run the slow tests."))
    page.locator("#save").click()

    conflict = page.locator(".conflict")
    expect(conflict.locator(".conflict-message")).to_contain_text("changed on disk")
    expect(conflict.locator("pre.theirs")).to_contain_text("Added by an agent meanwhile.")
    expect(conflict.locator("pre.mine .changed")).to_have_text(["1. Run the slow tests."])
    marked = conflict.locator("pre.theirs .changed")  # the lines that differ, on each side
    expect(marked.filter(has_text="Added by an agent meanwhile.")).to_have_count(1)
    expect(marked.filter(has_text="1. Run the tests.")).to_have_count(1)
    expect(conflict.locator("pre.theirs div:not(.changed)", has_text="Rollback")).to_have_count(1)
    assert (studio.root / CARD).read_text() == theirs  # nothing was overwritten
    screenshot(page, "conflict")

    conflict.locator("#overwrite").click()  # the user decides: keep mine
    expect(page.locator(f"article.note[data-path='{CARD}']")).to_be_visible()
    assert "Run the slow tests." in (studio.root / CARD).read_text()


def test_take_the_version_on_disk_ends_the_conflict(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/edit/{CARD}")
    source = page.locator("#source")
    expect(source).to_have_value((studio.root / CARD).read_text())
    page.wait_for_timeout(1500)  # the page has its first stamp
    theirs = (studio.root / CARD).read_text() + "\nAdded by an agent meanwhile.\n"
    (studio.root / CARD).write_text(theirs)
    banner = page.locator(".changed-on-disk")
    expect(banner).to_be_visible()
    source.fill(source.input_value() + "\nmine\n")
    page.locator("#save").click()
    page.locator("#take-theirs").click()
    expect(source).to_have_value(theirs)
    expect(page.locator(".conflict")).to_be_hidden()
    expect(banner).to_be_hidden()  # the editor holds the file as it is on disk now


def test_history_shows_the_diff_and_restores_a_version(page: Page, studio: Studio) -> None:
    original = (studio.root / CARD).read_text()
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/edit/{CARD}")
    source = page.locator("#source")
    expect(source).to_have_value(original)
    source.fill(original.replace("The zebra command", "The unicorn command"))
    page.locator("#save").click()
    expect(page.locator(f"article.note[data-path='{CARD}']")).to_contain_text("unicorn")

    page.locator("a.button", has_text="History").click()
    rows = page.locator("table.versions tbody tr[data-version]")
    expect(rows).to_have_count(2)  # the content found on disk, then the save
    diff = page.locator("pre.diff")
    expect(diff.locator(".diff-del")).to_contain_text("zebra")
    expect(diff.locator(".diff-add")).to_contain_text("unicorn")
    screenshot(page, "history")

    oldest = rows.last
    oldest.locator("button[data-restore]").click()
    oldest.locator("button[data-confirm-restore]").click()
    expect(page.locator("#status")).to_contain_text("Restored version 1")
    expect(rows).to_have_count(3)  # the restore is itself a version
    assert (studio.root / CARD).read_text() == original
