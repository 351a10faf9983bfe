"""An imported conversation keeps its own times in `remecli sessions`: its last activity is
when it was last said (its transcript's records carry that), not when it was imported."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

from tests.cli_process import run_remecli
from tests.memory.test_session_list import write_session

FIXTURES = Path(__file__).parent / "fixtures"
LAST_SAID = 1743544810  # the fixture's last message ("created")


def test_an_imported_conversation_keeps_its_last_activity(tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    write_session(root, "mine", ["deploy with make ship", "noted"], 1_750_000_000)  # 2025-06
    shutil.copy(FIXTURES / "openai_chat.json", tmp_path / "chat.json")
    settings = [f"working_dir={root}", "memory.summarize=false", "search.embedding.backend=none"]
    done = run_remecli("import", "chat.json", *settings, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr

    listed = run_remecli("sessions", "--json", *settings, cwd=tmp_path, timeout=60)
    assert listed.returncode == 0, listed.stderr
    sessions = json.loads(listed.stdout)
    said = dt.datetime.fromtimestamp(LAST_SAID).astimezone().isoformat(timespec="seconds")
    imported = sessions[1]
    assert imported["session_id"].startswith("openai-chat-")
    assert imported["last_activity"] == said  # was: the time of the import
    assert [s["session_id"] for s in sessions][0] == "mine"  # newer, so listed first
