"""A resource is sent to no model while the gate says none is configured (the watcher's
catch-up, `memory_ingest`): it waits in resource/ and becomes a card the next time with one."""

from __future__ import annotations

from remecli.knowledge.model_gate import ModelGate
from remecli.knowledge.resources.cards import ResourceCards
from tests.resources.conftest import answer, drop, resource_cards


async def test_a_resource_waits_for_a_model_and_becomes_a_card_with_one(
    cards: ResourceCards, fake_llm
) -> None:
    rel = drop(cards, "plan.md", "# Plan\n\nMigrate atlas to PostgreSQL 16 in March.\n")
    cards.gate = ModelGate(lambda: "No API key configured.")
    waiting = await cards.sync()  # the watcher's catch-up at a start
    assert [(o.resource, o.status) for o in waiting] == [(rel, "waiting")]
    assert "once a model is configured" in waiting[0].message
    assert "No API key configured." in (cards.gate.refusal("test") or "")  # said by a front-end
    assert fake_llm.chat_requests() == [] and resource_cards(cards.layout.root) == []

    cards.gate = ModelGate(lambda: None)  # a model configured: the next time makes the card
    fake_llm.add_text(answer("Atlas migration", "Atlas moves to PostgreSQL 16 in March."))
    done = await cards.sync()
    assert [(o.resource, o.status) for o in done] == [(rel, "created")]
    assert len(fake_llm.chat_requests()) == 1
