"""A new node a small model answered without writing it (measured on Qwen2.5-Coder 1.5B: the
JSON receipt alone, REFINE of a node that does not exist, twice, so the unit failed on every
dream) is made by code: the node its answer holds, else one made from the unit, checked and
sourced like any other."""

from __future__ import annotations

import datetime as dt

from remecli.knowledge.cards.card import read_card
from remecli.knowledge.dream.digest import node_problem, sources_links
from remecli.knowledge.dream.runner import dream
from remecli.knowledge.dream.state import Catalog
from tests.dream.conftest import add_card, extraction, make_settings, receipt, unit

DAY = dt.date(2025, 1, 31)
NODE = "digest/personal/user-has-a-cat-called-miso.md"
SUMMARY = "The user adopted a cat called Miso. Ask about Miso in small talk."


async def test_a_create_receipt_without_a_write_makes_the_node_from_the_unit(
    fake_llm, tmp_path, working_dir
):
    card = add_card(working_dir, DAY, "billing", "Billing", "The user adopted a cat called Miso.")
    fake_llm.add_text(extraction([unit("User has a cat called Miso", "personal", SUMMARY, card)]))
    # no tool call, and REFINE of a node that does not exist: what the real model answered
    fake_llm.add_text("```json\n" + receipt("REFINE", NODE) + "\n```")
    result = await dream(make_settings(fake_llm, tmp_path), working_dir, date=DAY)
    assert result.status == "done", result
    [outcome] = result.outcomes
    assert (outcome.ok, outcome.action, outcome.path) == (True, "CREATE", NODE), outcome
    text = (working_dir.root / NODE).read_text(encoding="utf-8")
    assert node_problem(NODE, text) is None, text
    meta = read_card(text).meta
    assert meta["name"] == "User has a cat called Miso"
    assert meta["description"] == "The user adopted a cat called Miso."
    assert meta["kind"] == "personal" and meta["sources"] == 1
    assert SUMMARY in text and sources_links(text) == [card]
    assert card in Catalog.load(working_dir).cards
    assert len(fake_llm.chat_requests()) == 2  # extraction, one agent answer: no retry

    # a CREATE receipt for a path that is taken now: never written over, the unit fails
    other = add_card(working_dir, DAY, "cat", "Cat", "The user's cat Miso likes boxes.")
    fake_llm.clear()
    fake_llm.add_text(extraction([unit("User has a cat called Miso", "personal", "Boxes.", other)]))
    fake_llm.add_text(receipt("CREATE", NODE))
    fake_llm.add_text(receipt("CREATE", NODE))
    again = await dream(make_settings(fake_llm, tmp_path), working_dir, date=DAY)
    [failed] = again.outcomes
    assert not failed.ok and "no digest node was written" in failed.detail, failed
    assert (working_dir.root / NODE).read_text(encoding="utf-8") == text


async def test_a_node_written_out_in_the_answer_is_the_node(fake_llm, tmp_path, working_dir):
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship, Fridays", card)]))
    written_out = (
        "```markdown\n---\nname: Deploy atlas\ndescription: How atlas is deployed.\n---\n"
        "Deploy atlas with `make ship`, on Fridays only.\n```\n\n"
        + receipt("CREATE", "digest/procedure/deploy-atlas.md")
    )
    fake_llm.add_text(written_out)
    result = await dream(make_settings(fake_llm, tmp_path), working_dir, date=DAY)
    assert result.status == "done", result
    text = (working_dir.root / "digest/procedure/deploy-atlas.md").read_text(encoding="utf-8")
    assert "Deploy atlas with `make ship`, on Fridays only." in text
    assert "make ship, Fridays" not in text  # the model's node, not the unit's summary
    assert node_problem("digest/procedure/deploy-atlas.md", text) is None
    assert sources_links(text) == [card]
