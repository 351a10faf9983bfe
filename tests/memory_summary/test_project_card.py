"""A topic card names the project its conversation was held in (issue 22.1): the summarizer
takes it from the conversation's transcript records, not from the model."""

from __future__ import annotations

from remecli.conversation.transcript import Transcript
from remecli.knowledge.cards.card import read_card
from remecli.knowledge.summary.summarizer import Summarizer
from tests.memory_summary.conftest import DAY, assistant, make_settings, user

CARD = "memory/2025-01-31/atlas-database-choice.md"
CARD_TEXT = """---
name: Atlas database choice
description: Chose PostgreSQL 16 for project atlas because it needs JSONB.
project: made-up-by-the-model
tags: [atlas]
---
# Atlas database choice

## Timeline
- 10:05 Chose PostgreSQL 16 for atlas (needs JSONB).
"""


async def summarize_session(fake_llm, tmp_path, working_dir, project: str) -> dict:
    messages = [
        user("Use PostgreSQL 16 for atlas, we need JSONB", "10:05"),
        assistant("OK", "10:06"),
    ]
    transcript = Transcript(working_dir.transcript_file("s1"), project)
    transcript.append([Transcript.message_record(m) for m in messages])
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_tool_calls([("write", {"path": CARD, "content": CARD_TEXT})])
    fake_llm.add_text("Saved the database decision.")
    result = await summarizer.summarize(messages, date=DAY, session_id="s1", lines=(1, 2))
    assert result.status == "written", result
    return read_card((working_dir.root / CARD).read_text()).meta


async def test_the_card_names_the_transcripts_project(fake_llm, tmp_path, working_dir):
    meta = await summarize_session(fake_llm, tmp_path, working_dir, "atlas-repo")
    assert meta["project"] == "atlas-repo"
    assert list(meta)[:6] == [
        "name",
        "description",
        "session_id",
        "source_conversation",
        "date",
        "project",
    ]
    records = working_dir.transcript_file("s1").read_text().splitlines()
    assert all('"project": "atlas-repo"' in line for line in records)


async def test_no_project_no_field(fake_llm, tmp_path, working_dir):
    meta = await summarize_session(fake_llm, tmp_path, working_dir, "")
    assert "project" not in meta  # the model's own value is not kept either
