"""Dream verification: receipt recovery, a failed unit retried next run, stray writes undone."""

from __future__ import annotations

import datetime as dt

from remecli.knowledge.cards.card import read_card
from remecli.knowledge.dream.runner import dream
from remecli.knowledge.dream.state import Catalog
from tests.dream.conftest import add_card, extraction, make_settings, node_text, receipt, unit
from tests.fakes.messages import content_text, tool_texts

DAY = dt.date(2025, 1, 31)
NODE = "digest/procedure/deploy-atlas.md"


async def test_receipt_recovery(fake_llm, tmp_path, working_dir):
    """The model wrote a valid node but answered no valid receipt: the write is accepted."""
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship, Fridays", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": node_text(card)})])
    fake_llm.add_text("Done! I created the node.")
    result = await dream(make_settings(fake_llm, tmp_path), working_dir, date=DAY)
    assert result.status == "done", result
    [outcome] = result.outcomes
    assert (outcome.ok, outcome.action, outcome.path, outcome.recovered) == (
        True,
        "CREATE",
        NODE,
        True,
    )
    meta = read_card((working_dir.root / NODE).read_text()).meta
    assert meta and meta["kind"] == "procedure" and meta["sources"] == 1
    assert card in Catalog.load(working_dir).cards


async def test_failed_unit_is_retried_next_run(fake_llm, tmp_path, working_dir):
    settings = make_settings(fake_llm, tmp_path)
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    other = add_card(working_dir, DAY, "lunch", "Lunch", "Talked about lunch plans today.")
    invalid = "---\nname: Deploy atlas\ndescription: How atlas is deployed.\n---\nNo sources.\n"
    fake_llm.add_text(
        extraction([unit("Deploy atlas", "procedure", "make ship", card)], skipped=[other])
    )
    # attempt 1: an invalid node (no `## Sources`) and a stray file: both undone
    fake_llm.add_tool_calls(
        [
            ("write", {"path": NODE, "content": invalid}),
            ("write", {"path": "digest/wiki/stray.md", "content": node_text(card)}),
        ]
    )
    fake_llm.add_text(receipt("CREATE", NODE))
    # attempt 2 (with the reason): the model writes nothing
    fake_llm.add_text("I could not decide.")
    result = await dream(settings, working_dir, date=DAY)
    assert result.status == "partial", result
    [outcome] = result.outcomes
    assert not outcome.ok and "no digest node was written" in outcome.detail
    assert "retried next run" in result.message
    assert not (working_dir.root / "digest/procedure/deploy-atlas.md").exists()
    assert not (working_dir.root / "digest/wiki/stray.md").exists()
    retry_prompt = content_text(fake_llm.chat_requests()[3].body["messages"][1])
    assert "must end with a `## Sources` section" in retry_prompt, retry_prompt[-400:]
    catalog = Catalog.load(working_dir)
    assert card not in catalog.cards and other in catalog.cards  # skipped: judged, recorded

    # next run: only the failed card is extracted again, and now it works
    fake_llm.clear()
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": node_text(card)})])
    fake_llm.add_text(receipt("CREATE", NODE))
    result = await dream(settings, working_dir, date=DAY)
    assert result.status == "done", result
    extraction_request = content_text(fake_llm.chat_requests()[0].body["messages"][-1])
    assert card in extraction_request and other not in extraction_request
    assert card in Catalog.load(working_dir).cards


async def test_unusable_extraction_is_retried_once_then_fails(fake_llm, tmp_path, working_dir):
    settings = make_settings(fake_llm, tmp_path)
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    fake_llm.add_text("Here are the units: deploy.")
    fake_llm.add_text(
        '{"units": [{"name": "x", "bucket": "nowhere", "summary": "s", "paths": []}]}'
    )
    result = await dream(settings, working_dir, date=DAY)
    assert result.status == "failed" and "unusable twice" in result.message
    second = fake_llm.chat_requests()[1].body["messages"]
    assert "could not be used: it is not a JSON object" in content_text(second[-1])
    assert card not in Catalog.load(working_dir).cards


async def test_refused_paths_for_the_dream_agent(fake_llm, tmp_path, working_dir):
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship", card)]))
    fake_llm.add_tool_calls(
        [
            ("write", {"path": card, "content": "overwritten"}),
            ("write", {"path": "digest/other/x.md", "content": node_text(card)}),
            ("write", {"path": "MEMORY.md", "content": "gone"}),
        ]
    )
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": node_text(card)})])
    fake_llm.add_text(receipt("CREATE", NODE))
    before = (working_dir.root / card).read_text()
    result = await dream(make_settings(fake_llm, tmp_path), working_dir, date=DAY)
    answers = tool_texts(fake_llm.chat_requests()[2].body)
    assert len(answers) == 3 and all("is refused" in a for a in answers), answers
    assert (working_dir.root / card).read_text() == before
    assert "gone" not in working_dir.memory_md.read_text()
    assert result.status == "done"


async def test_cancelled_dream_leaves_the_digest_and_catalog_as_they_were(
    fake_llm, tmp_path, working_dir
):
    """An exit during a dream: the half-done unit is undone and its card stays pending."""
    import asyncio

    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": node_text(card)})])
    fake_llm.add_text(receipt("CREATE", NODE), delay=60)  # the receipt never comes in time
    task = asyncio.create_task(dream(make_settings(fake_llm, tmp_path), working_dir, date=DAY))
    deadline = asyncio.get_running_loop().time() + 60
    while len(fake_llm.chat_requests()) < 3:  # the model wrote the node, then went quiet
        assert asyncio.get_running_loop().time() < deadline, "the dream never got that far"
        await asyncio.sleep(0.02)
    assert tool_texts(fake_llm.chat_requests()[2].body)[0].startswith("Wrote ")  # staged
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    assert not (working_dir.root / NODE).exists()
    assert card not in Catalog.load(working_dir).cards


async def test_a_user_edit_during_a_dream_is_never_undone(fake_llm, tmp_path, working_dir):
    from tests.fakes.turns import ToolCallsTurn, make_tool_calls

    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    mine = working_dir.root / "digest/wiki/my-notes.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("---\nname: My notes\ndescription: mine\n---\nv1\n\n## Sources\n")

    def user_edits_then_model_writes_nothing_valid(body: dict) -> ToolCallsTurn:
        mine.write_text(mine.read_text().replace("v1", "v2 typed by the user"))
        bad = "---\nname: Deploy atlas\ndescription: d\n---\nno sources\n"
        return ToolCallsTurn(make_tool_calls([("write", {"path": NODE, "content": bad})]))

    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship", card)]))
    fake_llm.add_handler(user_edits_then_model_writes_nothing_valid)
    fake_llm.add_text(receipt("CREATE", NODE))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": node_text(card)})])
    fake_llm.add_text(receipt("CREATE", NODE))
    result = await dream(make_settings(fake_llm, tmp_path), working_dir, date=DAY)
    assert [(o.ok, o.action) for o in result.outcomes] == [(True, "CREATE")]
    assert "v2 typed by the user" in mine.read_text()  # the undo of attempt 1 left it alone
