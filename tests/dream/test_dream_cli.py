"""`remecli dream [date=…]` as a user runs it: a real process against the fake server."""

from __future__ import annotations

import datetime as dt
import subprocess

import pytest

from remecli.notes.layout import WorkingDir
from tests.cli_process import fake_llm_settings, run_remecli
from tests.dream.conftest import add_card, extraction, receipt, unit

DAY = dt.date(2025, 1, 31)
NODE = "digest/personal/tabs-not-spaces.md"
NODE_TEXT = (
    "---\nname: Tabs not spaces\ndescription: The user indents Go code with tabs.\n---\n"
    "The user wants tabs in Go code.\n\n## Sources\n- Said in [[memory/2025-01-31/style.md]].\n"
)


def remecli(tmp_path, fake_llm, *args: str) -> subprocess.CompletedProcess:
    settings = fake_llm_settings(tmp_path / ".reme", fake_llm.base_url)
    return run_remecli("dream", *args, *settings, cwd=tmp_path, timeout=120)


def test_remecli_dream_command(fake_llm, tmp_path):
    working_dir = WorkingDir(tmp_path / ".reme").ensure()
    card = add_card(working_dir, DAY, "style", "Style", "The user indents Go code with tabs.")
    later = add_card(
        working_dir, DAY + dt.timedelta(days=1), "x", "Later", "A card of a later day."
    )
    fake_llm.add_text(extraction([unit("Tabs not spaces", "personal", "tabs in Go", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": NODE_TEXT})])
    fake_llm.add_text(receipt("CREATE", NODE))
    done = remecli(tmp_path, fake_llm, "date=2025-01-31")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"Dream: 1 unit(s) (CREATE {NODE})."
    assert (working_dir.root / NODE).is_file()
    first_request = str(fake_llm.chat_requests()[0].body["messages"])
    assert card in first_request and later not in first_request  # only days up to date=

    bad = remecli(tmp_path, fake_llm, "date=31.01.2025")
    assert bad.returncode == 2 and "date must be YYYY-MM-DD" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.timeout(600)  # five real processes on a shared machine
def test_remecli_dream_list_show_and_revert(fake_llm, tmp_path):
    working_dir = WorkingDir(tmp_path / ".reme").ensure()
    card = add_card(working_dir, DAY, "style", "Style", "The user indents Go code with tabs.")
    fake_llm.add_text(extraction([unit("Tabs not spaces", "personal", "tabs in Go", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": NODE_TEXT})])
    fake_llm.add_text(receipt("CREATE", NODE))
    assert remecli(tmp_path, fake_llm, "date=2025-01-31").returncode == 0

    listed = remecli(tmp_path, fake_llm, "--list")
    assert listed.returncode == 0, listed.stderr
    run_id = listed.stdout.split()[0]
    assert "applied" in listed.stdout and f"CREATE {NODE}" in listed.stdout
    assert "1 node added" in listed.stdout.splitlines()[0]  # what it changed, not only its status
    shown = remecli(tmp_path, fake_llm, "--show", run_id)
    assert shown.returncode == 0 and "+The user wants tabs in Go code." in shown.stdout
    assert f"sources: {card}" in shown.stdout

    reverted = remecli(tmp_path, fake_llm, "--revert", f"{run_id}:{NODE}")
    assert reverted.returncode == 0, reverted.stderr
    assert "reverted 1 node(s)" in reverted.stdout
    assert f"undo: remecli memory restore {NODE} 1" in reverted.stdout
    assert not (working_dir.root / NODE).exists()
    missing = remecli(tmp_path, fake_llm, "--show", "20990101T000000-abcd")
    assert missing.returncode == 1 and "no dream run" in missing.stderr


def test_a_shown_run_says_what_it_superseded() -> None:
    from remecli.surfaces.cli.dream import _run_text

    gone = {"claim": "Uses MySQL", "replaced_by": "Uses SQLite", "since": "", "until": "2026-04-01"}
    node = {
        "action": "CORRECT",
        "path": "digest/wiki/db.md",
        "reverted": False,
        "sources": ["memory/2026-04-01/c.md"],
        "before_version": 1,
        "after_version": 2,
        "diff": "",
        "supersessions": [gone],
    }
    text = _run_text({"id": "r", "time": "t", "status": "applied", "message": "m", "nodes": [node]})
    assert "  superseded: Uses MySQL (until 2026-04-01) -> Uses SQLite" in text
