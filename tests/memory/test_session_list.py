"""Listing saved conversations, and `resume=last` never picking an empty one (issue 16, major 5)."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agentscope.message import AssistantMsg, UserMsg

from remecli.conversation import persistence
from remecli.conversation.session_list import last_session_id, list_sessions
from remecli.conversation.transcript import Transcript
from remecli.notes.layout import WorkingDir


def write_session(root: Path, sid: str, lines: list[str], mtime: float) -> None:
    """A transcript + state file the way the app writes them (real Msg records)."""
    layout = WorkingDir(root)
    layout.sessions_dir.mkdir(parents=True, exist_ok=True)
    msgs = []
    for n, text in enumerate(lines):
        msgs.append(
            UserMsg(name="user", content=text)
            if n % 2 == 0
            else AssistantMsg(name="ReMe", content=text)
        )
    transcript = Transcript(layout.transcript_file(sid))
    at = dt.datetime.fromtimestamp(mtime).astimezone().isoformat(timespec="seconds")
    if msgs:  # each record dated as the app dates it: when it was said (= the files' time)
        transcript.append([Transcript.message_record(m, at=at) for m in msgs])
    persistence.write_state(
        layout,
        sid,
        {"session_id": sid, "context": [m.model_dump(mode="json") for m in msgs], "summary": ""},
        {},
    )
    for path in (layout.transcript_file(sid), layout.state_file(sid)):
        if path.exists():
            os.utime(path, (mtime, mtime))


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    root = tmp_path / ".reme"
    write_session(root, "old", ["deploy with make ship", "noted"], 1_700_000_000)
    write_session(
        root, "real", ["  \n  what is in MEMORY.md?\nsecond line", "nothing yet"], 1_700_000_100
    )
    write_session(root, "empty", [], 1_700_000_200)  # opened and closed without typing
    return root


def test_sessions_are_listed_newest_first_with_their_facts(sessions: Path) -> None:
    found = list_sessions(WorkingDir(sessions).sessions_dir)
    assert [s.session_id for s in found] == ["empty", "real", "old"]
    real = found[1]
    assert real.first_user_line == "what is in MEMORY.md?"
    assert real.messages == 2 and not real.empty
    assert real.started and real.last_activity.startswith("2023-11-14")
    assert found[0].empty and found[0].messages == 0
    assert set(real.as_json()) == {
        "session_id",
        "started",
        "last_activity",
        "first_user_line",
        "messages",
    }


def test_resume_last_skips_the_empty_session(sessions: Path) -> None:
    layout = WorkingDir(sessions)
    assert last_session_id(layout.sessions_dir) == "real"
    saved = persistence.load_saved(layout, "last")
    assert saved.session_id == "real"
    assert persistence.load_saved(layout, "empty").session_id == "empty"  # by id it still works


def test_sessions_command_prints_json_and_a_table(sessions: Path, tmp_path: Path) -> None:
    env = {**os.environ, "REME_LLM_API_KEY": "sk-test"}
    base = [sys.executable, "-m", "remecli", "sessions", "config=cli", f"working_dir={sessions}"]
    out = subprocess.run(
        [*base, "--json"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [d["session_id"] for d in data] == ["empty", "real", "old"]
    assert data[2]["first_user_line"] == "deploy with make ship" and data[2]["messages"] == 2
    table = subprocess.run(base, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert table.returncode == 0, table.stderr
    assert "what is in MEMORY.md?" in table.stdout and "resume=<id>" in table.stdout
