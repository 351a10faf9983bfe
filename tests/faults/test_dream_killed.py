"""Issue 25.18: a dream killed after its integration agent wrote a node, before the receipt.

A real `remecli dream` process is killed (SIGKILL) while the model holds back the receipt; the
next run must integrate the unit. The on-disk state older dreams left (a node the agent wrote,
without provenance) is recovered on the next run: adopted when valid, rolled back through the
version history when not.
"""

from __future__ import annotations

import datetime as dt
import signal
import subprocess
import time
from pathlib import Path

import pytest

from remecli.knowledge.cards.card import read_card
from remecli.knowledge.dream.runner import dream
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter
from tests.cli_process import fake_llm_settings, start_remecli
from tests.dream.conftest import add_card, extraction, make_settings, node_text, receipt, unit

DAY = dt.date(2025, 1, 31)
NODE = "digest/procedure/deploy-atlas.md"


def script_create(fake_llm, card: str, receipt_delay: float = 0.0) -> None:
    """Extraction, the agent's read and write of the node, then its receipt (after
    `receipt_delay`)."""
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship, Fridays", card)]))
    fake_llm.add_tool_calls([("read", {"path": NODE})])
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": node_text(card)})])
    fake_llm.add_text(receipt("CREATE", NODE), delay=receipt_delay)


def start_dream(base_url: str, working_dir: Path, cwd: Path) -> subprocess.Popen[str]:
    """`remecli dream date=DAY` started as a real process against the fake server."""
    settings = fake_llm_settings(working_dir, base_url)
    return start_remecli("dream", "config=cli", *settings, f"date={DAY:%Y-%m-%d}", cwd=cwd)


@pytest.mark.timeout(400)  # a real process on a shared machine
async def test_a_dream_killed_before_its_receipt_is_finished_next_run(fake_llm, tmp_path):
    working_dir = WorkingDir(tmp_path / ".reme").ensure()
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    script_create(fake_llm, card, receipt_delay=120)  # the receipt never comes in time
    process = start_dream(fake_llm.base_url, working_dir.root, tmp_path)
    try:
        deadline = time.monotonic() + 120
        while len(fake_llm.chat_requests()) < 4:  # the agent wrote the node, then went quiet
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the dream never got that far"
            time.sleep(0.05)
        time.sleep(0.5)  # the write is done before the next request is sent; be generous
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate()
    assert process.returncode == -signal.SIGKILL

    # the next run: a deterministic model does the same again, and the unit is integrated
    fake_llm.clear()
    script_create(fake_llm, card)
    result = await dream(make_settings(fake_llm, tmp_path), working_dir, date=DAY)
    assert result.status == "done", result.message
    meta = read_card((working_dir.root / NODE).read_text()).meta
    assert meta["kind"] == "procedure" and meta["last_confirmed"] == "2025-01-31"


async def test_a_node_an_interrupted_dream_wrote_is_adopted(fake_llm, tmp_path):
    """The state older dreams left when killed: the agent's node, written, no provenance."""
    working_dir = WorkingDir(tmp_path / ".reme").ensure()
    writer = MemoryWriter(working_dir.root)
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    writer.write(NODE, node_text(card), source="dream")  # the agent's write, then the kill
    script_create(fake_llm, card)  # the next run: the model does the same again
    result = await dream(make_settings(fake_llm, tmp_path), working_dir, date=DAY, writer=writer)
    assert result.status == "done", result.message
    assert [(r.action, r.path) for r in result.recovered] == [("ADOPTED", NODE)]
    assert "recovered what an interrupted dream left (adopted " in result.message
    meta = read_card((working_dir.root / NODE).read_text()).meta
    assert meta["sources"] == 1 and meta["first_seen"] == "2025-01-31"
    assert [o.ok for o in result.outcomes] == [True]


async def test_an_invalid_node_an_interrupted_dream_wrote_is_rolled_back(fake_llm, tmp_path):
    working_dir = WorkingDir(tmp_path / ".reme").ensure()
    writer = MemoryWriter(working_dir.root)
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    # an earlier dream made the node properly
    script_create(fake_llm, card)
    settings = make_settings(fake_llm, tmp_path)
    assert (await dream(settings, working_dir, date=DAY, writer=writer)).status == "done"
    good = (working_dir.root / NODE).read_text()
    # a later dream's agent wrote half a change (no `## Sources` yet) and was killed
    half = "---\nname: Deploy atlas\ndescription: How atlas is deployed.\n---\nMondays now.\n"
    writer.write(NODE, half, source="dream", allow_shrink=True)
    stray = "digest/wiki/stray-idea.md"
    writer.write(stray, "---\nname: Stray\ndescription: half\n---\nno sources\n", source="dream")
    fake_llm.clear()
    result = await dream(settings, working_dir, date=DAY, writer=writer)
    assert sorted((r.action, r.path) for r in result.recovered) == [
        ("REMOVED", stray),
        ("ROLLED BACK", NODE),
    ]
    assert (working_dir.root / NODE).read_text() == good
    assert not (working_dir.root / stray).exists()
    assert not fake_llm.chat_requests()  # the card was consolidated: no model call


async def test_a_users_node_without_provenance_is_left_alone(fake_llm, tmp_path):
    working_dir = WorkingDir(tmp_path / ".reme").ensure()
    writer = MemoryWriter(working_dir.root)
    mine = "---\nname: Mine\ndescription: written by hand\n---\nno sources section\n"
    writer.write("digest/wiki/mine.md", mine, source="studio")
    result = await dream(make_settings(fake_llm, tmp_path), working_dir, date=DAY, writer=writer)
    assert result.recovered == [] and (working_dir.root / "digest/wiki/mine.md").read_text() == mine
