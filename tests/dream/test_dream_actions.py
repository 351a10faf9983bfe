"""Auto Dream end to end against the fake LLM: the four actions, provenance kept by code."""

from __future__ import annotations

import datetime as dt

from remecli.knowledge.cards.card import read_card
from remecli.knowledge.dream.runner import dream
from remecli.knowledge.dream.state import Catalog
from remecli.notes.claims import parse_claims
from tests.dream.conftest import add_card, extraction, make_settings, receipt, unit
from tests.fakes.messages import content_text, tool_texts

D1, D2, D3, D4 = (dt.date(2025, 1, 31) + dt.timedelta(days=n) for n in range(4))
NODE = "digest/wiki/atlas-uses-postgresql.md"
SOURCE_1 = "- The decision is in [[memory/2025-01-31/atlas-db.md]].\n"
CLAIM = "The atlas project uses PostgreSQL 16 for its JSONB columns.\n"
NODE_TEXT = f"""---
name: Atlas uses PostgreSQL
description: The atlas project runs on PostgreSQL 16 because it needs JSONB.
---
{CLAIM}Migrations are described in [[digest/procedure/atlas-migrations.md]].

## Sources
{SOURCE_1}"""


def node_meta(working_dir) -> tuple[dict, str]:
    note = read_card((working_dir.root / NODE).read_text())
    meta, body = note.meta, note.body
    assert meta is not None
    return meta, body


async def test_create_corroborate_refine_correct(fake_llm, tmp_path, working_dir):
    settings = make_settings(fake_llm, tmp_path)

    # CREATE
    card1 = add_card(working_dir, D1, "atlas-db", "Atlas DB", "Chose PostgreSQL 16 for atlas.")
    fake_llm.add_text(extraction([unit("Atlas uses PostgreSQL", "wiki", "atlas: PG 16", card1)]))
    fake_llm.add_tool_calls([("search_digest", {"query": "atlas postgres"})])
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": NODE_TEXT})])
    fake_llm.add_text(receipt("CREATE", NODE))
    result = await dream(settings, working_dir, date=D1)
    assert result.status == "done", result
    assert [(o.action, o.path, o.recovered) for o in result.outcomes] == [("CREATE", NODE, False)]
    meta, body = node_meta(working_dir)
    assert {k: meta[k] for k in ("kind", "sources", "first_seen", "last_confirmed", "status")} == {
        "kind": "wiki",
        "sources": 1,
        "first_seen": "2025-01-31",
        "last_confirmed": "2025-01-31",
        "status": "active",
    }
    assert body.rstrip().endswith(SOURCE_1.strip())
    requests = fake_llm.chat_requests()
    assert card1 in content_text(requests[0].body["messages"][-1])  # the extraction saw it
    assert tool_texts(requests[2].body)[0] == "[]"  # the digest was empty
    assert card1 in Catalog.load(working_dir).cards

    # CORROBORATE: the same idea again; the search finds the node and hands it to the agent
    fake_llm.clear()
    card2 = add_card(working_dir, D2, "atlas-db-again", "Atlas DB", "PostgreSQL 16 confirmed.")
    source_2 = f"- Confirmed again in [[{card2}]].\n"
    fake_llm.add_text(
        extraction([unit("Atlas uses PostgreSQL", "wiki", "atlas PostgreSQL 16", card2)])
    )
    fake_llm.add_tool_calls([("read", {"path": NODE})])
    fake_llm.add_tool_calls(
        [("edit", {"path": NODE, "old_text": SOURCE_1, "new_text": SOURCE_1 + source_2})]
    )
    fake_llm.add_text(receipt("CORROBORATE", NODE))
    result = await dream(settings, working_dir, date=D2)
    assert [(o.action, o.path) for o in result.outcomes] == [("CORROBORATE", NODE)]
    integrate_prompt = content_text(fake_llm.chat_requests()[1].body["messages"][-1])
    assert f"- {NODE} (wiki, active): Atlas uses PostgreSQL" in integrate_prompt
    meta, _ = node_meta(working_dir)
    assert (meta["sources"], meta["first_seen"], meta["last_confirmed"]) == (
        2,
        "2025-01-31",
        "2025-02-01",
    )
    # only the new card was read by this run's extraction (the first is in the catalog)
    assert card1 not in content_text(fake_llm.chat_requests()[0].body["messages"][-1])

    # REFINE: a condition is added; the model forgot the source: the code adds it
    fake_llm.clear()
    card3 = add_card(working_dir, D3, "atlas-search", "Atlas search", "Search needs pg_trgm.")
    fake_llm.add_text(extraction([unit("Atlas uses PostgreSQL", "wiki", "needs pg_trgm", card3)]))
    fake_llm.add_tool_calls([("read", {"path": NODE})])
    fake_llm.add_tool_calls(
        [
            (
                "edit",
                {"path": NODE, "old_text": CLAIM, "new_text": CLAIM + "Search needs `pg_trgm`.\n"},
            )
        ]
    )
    fake_llm.add_text(receipt("REFINE", NODE))
    result = await dream(settings, working_dir, date=D3)
    assert [(o.action, o.path) for o in result.outcomes] == [("REFINE", NODE)]
    meta, body = node_meta(working_dir)
    assert "Search needs `pg_trgm`." in body and body.rstrip().endswith(f"- [[{card3}]]")
    assert (meta["sources"], meta["status"]) == (3, "active")

    # CORRECT: new evidence contradicts the version: claim tightened, contradiction recorded
    fake_llm.clear()
    card4 = add_card(
        working_dir, D4, "atlas-upgrade", "Atlas upgrade", "Atlas moved to PostgreSQL 17."
    )
    fixed = "The atlas project uses PostgreSQL 17 since 2025-02-03 (16 before) for JSONB.\n"
    fake_llm.add_text(extraction([unit("Atlas uses PostgreSQL", "wiki", "now PG 17", card4)]))
    fake_llm.add_tool_calls([("read", {"path": NODE})])
    fake_llm.add_tool_calls(
        [
            ("edit", {"path": NODE, "old_text": CLAIM, "new_text": fixed}),
            (
                "edit",
                {
                    "path": NODE,
                    "old_text": source_2,
                    "new_text": source_2 + f"- Upgrade: [[{card4}]].\n",
                },
            ),
        ]
    )
    fake_llm.add_text(
        receipt("CORRECT", NODE, "The atlas project uses PostgreSQL 16")[:-1]
        + ', "claim": "The atlas project runs on PostgreSQL 17"}'
    )
    result = await dream(settings, working_dir, date=D4)
    assert [(o.action, o.path) for o in result.outcomes] == [("CORRECT", NODE)]
    meta, body = node_meta(working_dir)
    assert "PostgreSQL 17 since 2025-02-03" in body and CLAIM not in body
    # the node stays current; its History keeps the old claim, struck, with its time
    assert meta["status"] == "active" and meta["sources"] == 4
    new_claim = "The atlas project runs on PostgreSQL 17"
    assert f"- {new_claim} (since 2025-02-03) [[{card4}]]" in body
    assert meta["description"] == new_claim  # what MEMORY.md's digest block shows
    assert (
        "- ~~The atlas project uses PostgreSQL 16~~ (2025-01-31 to 2025-02-03, "
        f'replaced by "{new_claim}")'
    ) in body
    assert body.index("## History") < body.index("## Sources")
    struck = next(line for line in body.splitlines() if line.startswith("- ~~"))
    assert struck.endswith(
        "[[memory/2025-01-31/atlas-db.md]] [[memory/2025-02-01/atlas-db-again.md]] [[memory/2025-02-02/atlas-search.md]]"
    )  # noqa: E501 - the cards the old claim rested on
    claims = parse_claims(body)
    assert [(c.superseded, c.holds_on(D2)) for c in claims] == [(False, False), (True, True)]
    assert meta["contradictions"] == [
        {"date": "2025-02-03", "source": card4, "note": "The atlas project uses PostgreSQL 16"}
    ]
    assert (meta["first_seen"], meta["last_confirmed"]) == ("2025-01-31", "2025-02-03")

    # nothing new: no model call at all
    fake_llm.clear()
    result = await dream(settings, working_dir, date=D4)
    assert result.status == "nothing" and fake_llm.chat_requests() == []
