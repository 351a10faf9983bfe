"""`remecli dream [date=…]` as a user runs it: a real process against the fake server."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

from remecli.memory.layout import WorkingDir
from tests.dream.conftest import add_card, extraction, receipt, unit

DAY = dt.date(2025, 1, 31)
NODE = "digest/personal/tabs-not-spaces.md"
NODE_TEXT = (
    "---\nname: Tabs not spaces\ndescription: The user indents Go code with tabs.\n---\n"
    "The user wants tabs in Go code.\n\n## Sources\n- Said in [[memory/2025-01-31/style.md]].\n"
)


def remecli(tmp_path, fake_llm, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    settings = [
        f"working_dir={tmp_path / '.reme'}",
        f"llm.base_url={fake_llm.base_url}",
        "llm.api_key=sk-test",
        "llm.model_name=fake-model",
        "llm.max_retries=0",
        "search.embedding.backend=none",
    ]
    return subprocess.run(
        [sys.executable, "-m", "remecli", "dream", *args, *settings],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


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
