"""Issue 25.6: a justified CORROBORATE that changes nothing is a success, not a failure retried
(with model calls) on every later run. Real `remecli dream` processes against the fake server."""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

import pytest

from remecli.knowledge.dream.state import Catalog
from remecli.notes.layout import WorkingDir
from tests.cli_process import fake_llm_settings, run_remecli
from tests.dream.conftest import add_card, extraction, receipt, unit

DAY = dt.date(2025, 1, 31)
NODE = "digest/procedure/deploy-atlas.md"


def run_dream(base_url: str, working_dir: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`remecli dream date=DAY` as a real process against the fake server."""
    settings = fake_llm_settings(working_dir, base_url)
    date = f"date={DAY:%Y-%m-%d}"
    return run_remecli("dream", "config=cli", *settings, date, cwd=cwd, timeout=120)


def node_text(card: str) -> str:
    return (
        "---\nname: Deploy atlas\ndescription: How atlas is deployed.\n---\n"
        f"Deploy atlas with `make ship`, on Fridays only.\n\n## Sources\n- [[{card}]]\n"
    )


@pytest.mark.timeout(600)  # three real processes on a shared machine
def test_a_justified_corroborate_is_not_retried(fake_llm, tmp_path: Path) -> None:
    working_dir = WorkingDir(tmp_path / ".reme").ensure()
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    # run 1: the unit becomes a node
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship, Fridays", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": node_text(card)})])
    fake_llm.add_text(receipt("CREATE", NODE))
    first = run_dream(fake_llm.base_url, working_dir.root, tmp_path)
    assert first.returncode == 0, first.stderr + first.stdout
    # the conversation went on: the card changed, but holds nothing the node lacks
    card_file = working_dir.root / card
    card_file.write_text(card_file.read_text() + "- 11:00 Confirmed: still Fridays.\n")
    node_before = (working_dir.root / NODE).read_text()

    # run 2: the model finds the node already says it and answers CORROBORATE, writing nothing
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship, Fridays", card)]))
    fake_llm.add_text(receipt("CORROBORATE", NODE))
    calls = len(fake_llm.chat_requests())
    second = run_dream(fake_llm.base_url, working_dir.root, tmp_path)
    assert second.returncode == 0, second.stderr + second.stdout
    assert f"CORROBORATE {NODE}" in second.stdout, second.stdout
    assert "failed" not in second.stdout + second.stderr
    assert len(fake_llm.chat_requests()) == calls + 2  # the extraction and one integration
    assert (working_dir.root / NODE).read_text() == node_before  # nothing to change
    assert card in Catalog.load(working_dir).cards  # recorded: consolidated

    # run 3: nothing new, so no model call at all
    calls = len(fake_llm.chat_requests())
    third = run_dream(fake_llm.base_url, working_dir.root, tmp_path)
    assert third.returncode == 0, third.stderr + third.stdout
    assert "no new or changed cards" in third.stdout, third.stdout
    assert len(fake_llm.chat_requests()) == calls
