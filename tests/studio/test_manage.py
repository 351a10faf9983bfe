"""Create, rename and delete notes in Studio (a real browser on a real server): a rename rewrites
the links to the note on disk, a delete first shows what still links there, and every file
changed keeps a version. The write job's `expected_sha256` (Studio's save uses it) is on the
HTTP API too."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

from playwright.sync_api import Page, expect

from tests.studio.conftest import CARD, DAY, WIKI, Studio, has_its_stamp, logged_in


def test_create_a_note_then_a_second_create_of_it_is_refused(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    page.locator("#new-note").click()
    page.locator("#new-path").fill("digest/wiki/rollback.md")
    page.locator("#source").fill("# Rollback\n\nSee the [[Deploy checklist]].\n")
    page.locator("#create").click()
    note = page.locator("article.note[data-path='digest/wiki/rollback.md']")
    expect(note.locator(".markdown a.wikilink")).to_have_attribute("href", f"#/note/{CARD}")
    assert (studio.root / "digest/wiki/rollback.md").read_text().startswith("# Rollback")
    page.goto(f"{studio.url}/#/new?path=digest/wiki/rollback.md")
    page.locator("#source").fill("# Something else\n")
    page.locator("#create").click()
    expect(page.locator(".editor-state")).to_contain_text("already exists")
    assert "Something else" not in (studio.root / "digest/wiki/rollback.md").read_text()


def test_rename_rewrites_the_links_to_the_note(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/note/{DAY}")
    page.locator("#rename").click()
    page.locator("#rename-to").fill("memory/2025-01-31-deploys.md")
    page.locator("#confirm-rename").click()
    expect(page.locator("article.note[data-path='memory/2025-01-31-deploys.md']")).to_be_visible()
    expect(page.locator("#status")).to_contain_text("links rewritten in MEMORY.md")
    assert not (studio.root / DAY).exists()
    memory = (studio.root / "MEMORY.md").read_text()
    assert "[[memory/2025-01-31-deploys.md#L3-L4|31 January]]" in memory
    page.goto(f"{studio.url}/#/note/MEMORY.md")  # the rewritten link still leads there
    page.locator(".markdown a.wikilink", has_text="31 January").click()
    expect(page.locator("article.note[data-path='memory/2025-01-31-deploys.md']")).to_be_visible()
    page.goto(f"{studio.url}/#/history/MEMORY.md")  # the rewrite is a version of MEMORY.md
    expect(page.locator("table.versions tbody tr[data-version]")).to_have_count(2)


def test_delete_shows_what_still_links_there_first(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/note/{WIKI}")
    page.locator("#delete").click()
    expect(page.locator(".still-linking a")).to_have_text([CARD])
    assert (studio.root / WIKI).exists()  # nothing happens before the confirmation
    page.locator("#confirm-delete").click()
    expect(page.locator("#status")).to_contain_text("1 links now dangling")
    assert not (studio.root / WIKI).exists()
    rows = page.locator("table.versions tbody tr[data-version]")
    expect(rows.first).to_contain_text("deleted")
    rows.nth(1).locator("button[data-restore]").click()  # and it comes back
    rows.nth(1).locator("button[data-confirm-restore]").click()
    expect(page.locator("#status")).to_contain_text("Restored")
    assert "Everything about deploying" in (studio.root / WIKI).read_text()


def test_the_http_api_write_takes_expected_sha256_too(studio: Studio) -> None:
    token = (studio.root / "serve.token").read_text().strip()
    loaded = (studio.root / CARD).read_text()
    body = {"path": CARD, "content": "# x\n", "allow_shrink": True, "expected_sha256": "0" * 64}
    request = urllib.request.Request(
        f"{studio.url}/api/memory_write",
        data=json.dumps(body).encode(),
        headers={"authorization": f"Bearer {token}", "content-type": "application/json"},
        method="POST",
    )
    try:
        urllib.request.urlopen(request, timeout=30)
        raise AssertionError("a stale write was accepted")
    except urllib.error.HTTPError as refused:
        assert refused.code == 409
        assert json.loads(refused.read())["code"] == "changed_on_disk"
    assert (studio.root / CARD).read_text() == loaded


def test_a_created_card_is_counted_at_once(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    count = page.locator("#nav a[data-section='cards'] .count")
    expect(count).to_have_text("1")
    has_its_stamp(page)
    page.goto(f"{studio.url}/#/new?path=memory/2025-01-31/rollback-drill.md")
    page.locator("#create").click()
    expect(
        page.locator("article.note[data-path='memory/2025-01-31/rollback-drill.md']")
    ).to_be_visible()
    started = time.monotonic()
    expect(count).to_have_text("2", timeout=5_000)
    counted_after = time.monotonic() - started
    print(f"created card counted {counted_after:.2f}s after its page was drawn")
    assert counted_after < 1.0
