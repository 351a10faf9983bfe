"""Each resource type becomes one card whose content comes from the model's summary."""

from __future__ import annotations

import datetime as dt

import pytest

from remecli.knowledge.cards.card import read_card
from tests.resources.conftest import answer, drop, resource_cards, resource_text

CASES = {
    "plan.md": (
        "# Launch plan\n\nShip **v2** on 2025-03-01.\n",
        ["Ship **v2** on 2025-03-01."],
        [],
    ),
    "notes.txt": ("The staging host is stg-7.\n", ["The staging host is stg-7."], []),
    "config.json": (
        '{"service": "atlas", "replicas": 3, "regions": ["eu", "us"]}',
        ['"service": "atlas"', '"replicas": 3'],
        [],
    ),
    "events.jsonl": (
        '{"event": "deploy", "by": "ana"}\n\n{"event": "rollback", "by": "li"}\n',
        ["(2 records, one per line)", '{"event": "rollback", "by": "li"}'],
        [],
    ),
    "people.csv": (
        "name;team;city\nAna;infra;Lisbon\nLi;data;Shanghai\n",
        ["(3 rows", "Ana | infra | Lisbon", "Li | data | Shanghai"],
        ["Ana;infra"],
    ),
    "deploy.yaml": (
        "# how we deploy\nstages:\n  - build\n  - ship  # fridays only\n",
        ["# how we deploy", "ship  # fridays only"],
        [],
    ),
    "page.html": (
        "<html><head><title>Runbook</title><style>p {color: red}</style>"
        "<script>alert('x')</script></head><body><h1>Restart atlas</h1>"
        "<p>Run <code>make restart</code> on   stg-7.</p></body></html>",
        ["Title: Runbook", "Restart atlas", "make restart"],
        ["alert(", "color: red", "<p>"],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
async def test_each_type_becomes_one_source_linked_card(cards, fake_llm, name) -> None:
    content, shown, hidden = CASES[name]
    rel = drop(cards, name, content)
    fake_llm.add_text(
        answer(f"About {name}", f"What {name} holds, summarized.", "first fact", "second fact")
    )
    outcome = await cards.ingest(rel)
    assert outcome.status == "created", outcome.message
    seen = resource_text(fake_llm.chat_requests()[0].body)
    for text in shown:
        assert text in seen
    for text in hidden:
        assert text not in seen
    root = cards.layout.root
    assert [path for path, _ in resource_cards(root)] == [outcome.card]
    note = read_card((root / outcome.card).read_text(encoding="utf-8"))
    meta, body = note.meta, note.body
    assert meta is not None
    today = f"{dt.date.today():%Y-%m-%d}"
    assert outcome.card == f"memory/{today}/about-{name.replace('.', '-')}.md"
    assert meta["source_resource"] == f"[[resource/{name}]]"
    assert meta["name"] == f"About {name}" and meta["date"] == today
    assert meta["description"] == f"What {name} holds, summarized." and meta["tags"] == ["test"]
    assert "- first fact\n- second fact" in body and f"[[resource/{name}]]" in body
    assert (cards.folder / name).read_text(encoding="utf-8") == content  # never moved or changed
    assert outcome.card in (root / "memory" / f"{today}.md").read_text(encoding="utf-8")


async def test_a_bad_answer_is_asked_again_once(cards, fake_llm) -> None:
    rel = drop(cards, "notes.txt", "Backups run at 02:00.\n")
    fake_llm.add_text("Sure! Here is a summary of the notes.")
    fake_llm.add_text(answer("Backups", "When the nightly backups run."))
    outcome = await cards.ingest(rel)
    assert outcome.status == "created"
    retry = fake_llm.chat_requests()[1].body["messages"][-1]["content"]
    assert "not a JSON object" in str(retry)


async def test_a_model_that_never_answers_well_leaves_no_card(cards, fake_llm) -> None:
    rel = drop(cards, "notes.txt", "Backups run at 02:00.\n")
    fake_llm.add_text('{"name": "x"}')
    fake_llm.add_text('{"name": "x"}')
    outcome = await cards.ingest(rel)
    assert outcome.status == "failed" and "description" in outcome.message
    assert resource_cards(cards.layout.root) == []


async def test_secrets_in_a_resource_never_reach_the_model_or_the_card(cards, fake_llm) -> None:
    key = "sk-proj-" + "a1B2" * 10
    rel = drop(cards, "keys.txt", f"Our deploy key is {key} (rotate monthly).\n")
    fake_llm.add_text(answer("Deploy key", f"The deploy key {key} is rotated monthly."))
    outcome = await cards.ingest(rel)
    assert key not in str(fake_llm.chat_requests()[0].body)
    assert key not in (cards.layout.root / outcome.card).read_text(encoding="utf-8")
