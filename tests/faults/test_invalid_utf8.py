"""Issue 25.5: a memory file holding bytes that are not UTF-8 never blocks a summary.

Before: the day's card (or day page) with one stray Latin-1 byte made every summary of that
day fail with UnicodeDecodeError. Now such a file is read with replacement characters, the log
names it once, the summary is written, and the user's bytes outside the generated block stay.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from remecli.knowledge.summary.summarizer import Summarizer
from remecli.notes.layout import WorkingDir
from tests.fakes.faulty_openai import FaultyOpenAIServer
from tests.memory_summary.conftest import DAY, assistant, make_settings, user

CARD = "memory/2025-01-31/deploy-notes.md"
NEW_CARD = """---
name: Deploy notes
description: How atlas ships.
---
# Deploy notes

- The team ships atlas with `make ship`.
"""
BROKEN = (
    b"---\nname: Old caf\xe9 notes\ndescription: caf\xe9\n---\n# Old caf\xe9 notes\n- \xff\xfe\n"
)


async def test_summary_is_written_next_to_files_that_are_not_utf8(
    fake_llm: FaultyOpenAIServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    working_dir = WorkingDir(tmp_path / ".reme").ensure()
    cards = working_dir.root / "memory" / "2025-01-31"
    cards.mkdir(parents=True)
    (cards / "old-cafe-notes.md").write_bytes(BROKEN)
    page = working_dir.daily_file(DAY)
    page.write_bytes(b"# 2025-01-31\n\nMy own notes, written in Latin-1: caf\xe9.\n")
    fake_llm.add_tool_calls([("write", {"path": CARD, "content": NEW_CARD})])
    fake_llm.add_text("Saved.")
    fake_llm.set_fallback("Saved.")
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    with caplog.at_level(logging.WARNING):
        result = await summarizer.summarize(
            [user("We ship atlas with make ship", "10:05"), assistant("Noted", "10:06")],
            date=DAY,
            session_id="s1",
        )
    assert result.status == "written", result
    assert (working_dir.root / CARD).is_file()
    text = page.read_bytes()
    assert b"deploy-notes.md|Deploy notes]]" in text
    assert b"caf\xe9." in text  # the user's own bytes are kept as they were
    named = [r.getMessage() for r in caplog.records if "not valid UTF-8" in r.getMessage()]
    assert any("old-cafe-notes.md" in line for line in named), named
