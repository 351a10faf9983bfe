"""Studio on `remecli serve --read-only`: it shows memory but offers no editor, and a restore
is refused with the server's reason."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from remecli.config.settings import MemorySettings
from remecli.notes.writer import MemoryWriter
from tests.studio.conftest import CARD, Studio, logged_in, seed
from tests.surfaces.helpers import start_surface, surface_settings, wait_until_healthy


def test_read_only_server_offers_no_editor_and_refuses_a_restore(
    page: Page, tmp_path: Path, fake_llm
) -> None:
    root = tmp_path / ".reme"
    seed(root)
    original = (root / CARD).read_text()
    writer = MemoryWriter.from_settings(root, MemorySettings())
    writer.write(root / CARD, original + "\nOne more line.\n", source="test")  # versions 1, 2
    changed = (root / CARD).read_text()
    settings = surface_settings(root, fake_llm.base_url)
    surface = start_surface(["serve", "--read-only", "--port", "0", *settings])
    try:
        wait_until_healthy(surface.url)
        logged_in(page, Studio(surface, root, settings))
        expect(page.locator("#nav")).to_contain_text("read-only server")
        page.goto(f"{surface.url}/#/note/{CARD}")
        note = page.locator(f"article.note[data-path='{CARD}']")
        expect(note.locator("a.button", has_text="History")).to_be_visible()
        assert note.locator("a.button", has_text="Edit").count() == 0
        page.goto(f"{surface.url}/#/edit/{CARD}")
        expect(page.locator("main .warning")).to_contain_text("cannot edit")
        assert page.locator("#source").count() == 0

        page.goto(f"{surface.url}/#/history/{CARD}")
        oldest = page.locator("table.versions tbody tr[data-version='1']")
        oldest.locator("button[data-restore]").click()
        oldest.locator("button[data-confirm-restore]").click()
        expect(page.locator("#status")).to_contain_text("read-only")
        assert (root / CARD).read_text() == changed
    finally:
        surface.stop()


def test_read_only_server_shows_a_dangling_link_as_missing_not_as_a_create_form(
    page: Page, tmp_path: Path, fake_llm
) -> None:
    """A dangling link opened a 'create this note' form that could not save on a read-only
    server (issue 38): it leads to the missing note's page, which offers nothing to create."""
    root = tmp_path / ".reme"
    seed(root)
    settings = surface_settings(root, fake_llm.base_url)
    surface = start_surface(["serve", "--read-only", "--port", "0", *settings])
    try:
        wait_until_healthy(surface.url)
        logged_in(page, Studio(surface, root, settings))
        link = page.locator(".markdown a.wikilink.dangling", has_text="release calendar")
        expect(link).to_have_attribute("href", "#/note/digest/wiki/release-calendar.md")
        link.click()
        missing = page.locator(".missing-note[data-path='digest/wiki/release-calendar.md']")
        expect(missing).to_contain_text("There is no note here yet.")
        assert missing.locator("#missing-create").count() == 0
        assert page.locator("#new-path, #source, #create").count() == 0
        page.goto(f"{surface.url}/#/new?path=digest%2Fwiki%2Fx.md")  # the address typed in
        expect(page.locator("#create-refused")).to_contain_text("read-only")
        assert page.locator("#create, #source").count() == 0
    finally:
        surface.stop()
