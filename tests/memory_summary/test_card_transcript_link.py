"""A card's `transcript` link opens the cited line in the transcript's readable page: the link
remecli's one parser reads points at `sessions/<id>.md`, block `^L<first cited line>`, and that
block exists there and holds the message the card cites (issue 25.13)."""

from __future__ import annotations

import re

from remecli.conversation.transcript import Transcript
from remecli.conversation.transcript_page import page_path
from remecli.knowledge.cards.card import read_card, source_range, transcript_line_range
from remecli.knowledge.summary.summarizer import Summarizer
from remecli.notes.links import LinkGraph
from remecli.notes.links.parse import link_in_value
from tests.memory_summary.conftest import DAY, assistant, make_settings, user

CARD = "memory/2025-01-31/atlas-database-choice.md"
CARD_TEXT = """---
name: Atlas database choice
description: Chose PostgreSQL 16 for project atlas because it needs JSONB.
transcript: "[[made/up/by/the/model]]"
tags: [atlas]
---
# Atlas database choice

## Timeline
- 10:05 Chose PostgreSQL 16 for atlas (needs JSONB).
"""


async def test_a_cards_transcript_link_lands_on_the_first_cited_line(
    fake_llm, tmp_path, working_dir
) -> None:
    earlier = [user("What time is it?", "09:00"), assistant("Nine.", "09:01")]
    cited = [user("Use PostgreSQL 16 for atlas, we need JSONB", "10:05"), assistant("OK", "10:06")]
    transcript = Transcript(working_dir.transcript_file("s1"))
    transcript.append([Transcript.message_record(m) for m in earlier + cited])
    lines = transcript_line_range(transcript.path, [m.id for m in cited])
    assert lines == (3, 4)
    fake_llm.add_tool_calls([("write", {"path": CARD, "content": CARD_TEXT})])
    fake_llm.add_text("Saved the database decision.")
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    result = await summarizer.summarize(cited, date=DAY, session_id="s1", lines=lines)
    assert result.status == "written", result

    meta = read_card((working_dir.root / CARD).read_text()).meta
    assert source_range(meta["source_conversation"]) == (3, 4)  # machine provenance unchanged
    link = link_in_value(meta["transcript"])  # the code's value, not the model's
    assert link is not None and (link.target, link.anchor) == ("sessions/s1.md", "^L3")
    page = page_path(transcript.path)
    assert page.relative_to(working_dir.root).as_posix() == link.target
    text = page.read_text(encoding="utf-8").split("\n")
    heading = next(k for k, line in enumerate(text) if re.search(r" \^L3$", line))
    assert text[heading].startswith("**user** · ")
    assert text[heading + 2] == "> Use PostgreSQL 16 for atlas, we need JSONB"

    graph = LinkGraph.open(working_dir.root, persist=False)
    try:
        targets = {edge.target for edge in graph.outlinks(CARD)}
        assert {"sessions/s1.md", "sessions/s1.jsonl"} <= targets
        assert "sessions/s1.md" not in graph.notes()  # linked to, never a note itself
        assert graph.dangling() == []
    finally:
        graph.close()
