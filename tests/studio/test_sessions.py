"""The Sessions page in a real browser: a transcript read as a conversation (checkpoints and other
records left out), the cards written from it, and the lines each card cites marked."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.studio.conftest import CARD, WIKI, Studio, logged_in, screenshot, transcript


def test_a_transcript_reads_as_a_conversation_with_its_cards_lines_marked(
    page: Page, studio: Studio
) -> None:
    (studio.root / "sessions" / "s1.jsonl").write_text(transcript(), encoding="utf-8")
    logged_in(page, studio)
    page.locator("#nav a[data-section='sessions']").click()
    page.locator("ul.files a[href='#/note/sessions/s1.jsonl']").click()

    session = page.locator("article.session[data-path='sessions/s1.jsonl']")
    turns = session.locator("li.turn")
    expect(turns.locator(".turn-text")).to_have_text(
        [
            "how do we deploy?",
            "make ship",
            "and who reads the staging logs?",
            "the on-call person, in the pager channel",
        ]
    )
    expect(turns.locator(".speaker")).to_have_text(["user", "assistant", "user", "assistant"])
    cards = page.locator(".session-cards li[data-card]")
    expect(cards).to_have_count(2)
    expect(cards.filter(has_text="Deploy checklist").locator(".cites")).to_have_text("cites L1–L2")
    expect(cards.filter(has_text="Wiki deploy").locator(".cites")).to_have_text("cites L4–L5")
    cited = session.locator("li.turn.cited")
    expect(cited).to_have_count(4)  # at first every cited line
    screenshot(page, "session")

    cards.filter(has_text="Wiki deploy").locator(".cites").click()
    expect(cited).to_have_count(2)
    expect(cited.locator(".turn-text")).to_have_text(
        ["and who reads the staging logs?", "the on-call person, in the pager channel"]
    )
    cards.filter(has_text="Deploy checklist").locator("a").click()
    expect(page.locator(f"article.note[data-path='{CARD}']")).to_be_visible()

    # a card's source link opens the conversation at the lines it cites
    page.locator(".fields a.wikilink").click()
    expect(session.locator("li.turn.cited .turn-text")).to_have_text(
        ["how do we deploy?", "make ship"]
    )
    page.goto(f"{studio.url}/#/note/{WIKI}")
    page.locator(".markdown a.wikilink", has_text="sessions/s1.jsonl").click()
    expect(session.locator("li.turn.cited")).to_have_count(2)
    expect(session.locator("li.turn.cited").first).to_have_attribute("data-line", "4")
