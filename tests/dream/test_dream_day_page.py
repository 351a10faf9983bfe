"""Issue 25.13, the dream's parts: one version per dream write; the day page lists cards in the
order they were created; a card deleted by hand drops off its day page at the next dream."""

from __future__ import annotations

import datetime as dt

from remecli.knowledge.cards.card import apply_card_fields
from remecli.knowledge.cards.day_page import refresh_day_page
from remecli.knowledge.dream.runner import dream
from remecli.notes.writer import MemoryWriter
from tests.dream.conftest import extraction, make_settings, receipt, unit

DAY = dt.date(2025, 1, 31)
NODE = "digest/procedure/deploy-atlas.md"


def write_card(writer: MemoryWriter, slug: str, text: str) -> str:
    """A card of DAY written through the writer, as the summarizer does; its relative path."""
    body = f"---\nname: {slug}\ndescription: {text}\ntags: [test]\n---\n# {slug}\n\n- {text}\n"
    card = apply_card_fields(body, session_id=f"s-{slug}", day=DAY, lines=(1, 2))
    rel = f"memory/{DAY:%Y-%m-%d}/{slug}.md"
    writer.write(rel, card, source="summarizer")
    return rel


def node_text(card: str, claim: str) -> str:
    return (
        "---\nname: Deploy atlas\ndescription: How atlas is deployed.\n---\n"
        f"{claim}\n\n## Sources\n- [[{card}]]\n"
    )


async def test_each_dream_write_is_one_version(fake_llm, tmp_path, working_dir):
    writer = MemoryWriter(working_dir.root)
    settings = make_settings(fake_llm, tmp_path)
    card = write_card(writer, "deploy", "Atlas ships with make ship on Fridays.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": node_text(card, "Fridays.")})])
    fake_llm.add_text(receipt("CREATE", NODE))
    assert (await dream(settings, working_dir, date=DAY, writer=writer)).status == "done"
    assert [v.source for v in writer.history(NODE)] == ["dream"]

    other = write_card(writer, "deploy-days", "Atlas also ships on Tuesdays now.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "Tuesdays too", other)]))
    fake_llm.add_tool_calls([("read", {"path": NODE})])
    fake_llm.add_tool_calls(
        [("edit", {"path": NODE, "old_text": "Fridays.", "new_text": "Fridays and Tuesdays."})]
    )
    fake_llm.add_text(receipt("REFINE", NODE))
    result = await dream(settings, working_dir, date=DAY, writer=writer)
    assert [(o.ok, o.action) for o in result.outcomes] == [(True, "REFINE")], result.message
    assert [v.source for v in writer.history(NODE)] == ["dream", "dream"]
    assert "Fridays and Tuesdays." in (working_dir.root / NODE).read_text()


def test_the_day_page_lists_cards_in_the_order_they_were_made(working_dir):
    writer = MemoryWriter(working_dir.root)
    zebra = write_card(writer, "zebra-setup", "First thing this morning, the zebra setup.")
    apple = write_card(writer, "apple-notes", "Later, notes about apples.")
    middle = write_card(writer, "middle-thing", "Then the middle thing.")
    refresh_day_page(working_dir, DAY, writer)
    page = working_dir.daily_file(DAY).read_text()
    positions = [page.index(f"[[{rel}|") for rel in (zebra, apple, middle)]
    assert positions == sorted(positions), page


async def test_a_card_deleted_by_hand_leaves_the_day_page_at_the_next_dream(
    fake_llm, tmp_path, working_dir
):
    writer = MemoryWriter(working_dir.root)
    settings = make_settings(fake_llm, tmp_path)
    keep = write_card(writer, "deploy", "Atlas ships with make ship on Fridays.")
    gone = write_card(writer, "lunch", "Talked about lunch plans today.")
    refresh_day_page(working_dir, DAY, writer)
    fake_llm.add_text(extraction([], skipped=[keep, gone]))  # nothing durable in either
    assert (await dream(settings, working_dir, date=DAY, writer=writer)).ok
    assert f"[[{gone}|" in working_dir.daily_file(DAY).read_text()

    (working_dir.root / gone).unlink()  # by hand, in a file manager
    calls = len(fake_llm.chat_requests())
    result = await dream(settings, working_dir, date=DAY, writer=writer)
    assert result.status == "nothing" and len(fake_llm.chat_requests()) == calls
    page = working_dir.daily_file(DAY).read_text()
    assert gone not in page and f"[[{keep}|" in page
