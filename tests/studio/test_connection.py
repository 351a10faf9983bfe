"""Studio when its server goes away (issue 38): the page says the server is not answering (not
'Failed to fetch'), polls less and less often (it polled every 600 ms forever), and when the
server is back (restarted: this login is gone) says how to log in; once logged in again in
another tab, the page draws itself anew."""

from __future__ import annotations

import signal
import time

from playwright.sync_api import Page, expect

from remecli.surfaces.auth import load_token
from remecli.surfaces.studio.access import login_url
from tests.studio.conftest import CARD, Studio, logged_in
from tests.surfaces.helpers import start_surface, wait_until_healthy

AWAY_SECONDS = 8.0


def test_a_stopped_server_is_shown_and_the_page_recovers(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/note/{CARD}")
    expect(page.locator(f"article.note[data-path='{CARD}']")).to_be_visible()
    polls: list[float] = []
    page.on("request", lambda r: "/studio/api/stamp" in r.url and polls.append(time.monotonic()))
    studio.surface.stop(signal.SIGKILL)
    banner = page.locator("#connection")
    expect(banner).to_contain_text("not answering", timeout=10_000)
    gone_at = time.monotonic()
    page.wait_for_timeout(AWAY_SECONDS * 1000)
    tried = [t for t in polls if gone_at <= t <= gone_at + AWAY_SECONDS]
    assert len(tried) <= 4, f"{len(tried)} polls in {AWAY_SECONDS} s with the server gone"
    page.goto(f"{studio.url}/#/note/MEMORY.md")  # a page drawn meanwhile says what to do
    expect(page.locator("main .error-box")).to_contain_text("not answering")
    expect(page.locator("main")).not_to_contain_text("Failed to fetch")

    port = studio.url.rsplit(":", 1)[1]
    studio.surface = start_surface(["serve", "--port", port, *studio.settings])
    wait_until_healthy(studio.url)
    page.locator("#connection-retry").click()
    expect(banner).to_contain_text("remecli studio", timeout=20_000)  # a restart logged it out

    other = page.context.new_page()  # `remecli studio` opens a new tab, logged in
    other.goto(login_url(studio.url, load_token(studio.root).value))
    other.wait_for_selector("article.note[data-path='MEMORY.md']")
    expect(banner).to_be_hidden(timeout=40_000)
    expect(page.locator("article.note[data-path='MEMORY.md']")).to_be_visible()
