"""A card a small model answers with instead of calling `write` (measured on Qwen2.5-Coder 1.5B
served locally) is saved as the conversation's card, through the same checks as a `write`."""

from __future__ import annotations

from remecli.knowledge.cards import read_card
from remecli.knowledge.summarizer import Summarizer
from tests.memory_summary.conftest import DAY, assistant, make_settings, user

# the shape of the real model's answer: the card itself, then the example's closing fence
ANSWERED = """---
name: Staging database deployment schedule
description: The staging database is pg-stage-7 in Frankfurt; deploys run on Fridays with make ship.
tags: [staging, deploy]
---
# Staging database deployment schedule

## Current state
- Staging database: pg-stage-7 (Frankfurt).

## Timeline
- 09:12 The user asked to remember the staging database and the deploy day.

## Details
- Deploy command: `make ship`, on Fridays.
```"""
CONVERSATION = [
    user("please remember: our staging database is pg-stage-7 in Frankfurt", "09:12"),
    assistant("Noted.", "09:12"),
]


async def test_a_card_given_as_the_answer_is_saved(fake_llm, tmp_path, working_dir):
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_text(ANSWERED)
    result = await summarizer.summarize(CONVERSATION, date=DAY, session_id="s1", lines=(1, 2))
    card = "memory/2025-01-31/staging-database-deployment-schedule.md"
    assert result.status == "written", result
    assert result.written == [card, "memory/2025-01-31.md"]
    text = (working_dir.root / card).read_text()
    meta = read_card(text).meta
    assert (
        meta["session_id"] == "s1" and meta["source_conversation"] == "[[sessions/s1.jsonl#L1-L2]]"
    )
    assert "- Deploy command: `make ship`, on Fridays." in text and "```" not in text
    assert len(fake_llm.chat_requests()) == 1  # saved from the answer: no second request


async def test_a_fenced_card_is_saved_and_prose_still_fails(fake_llm, tmp_path, working_dir):
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_text("Here is the card:\n```markdown\n" + ANSWERED.removesuffix("```") + "```\n")
    result = await summarizer.summarize(CONVERSATION, date=DAY, session_id="s2", lines=(1, 2))
    assert result.status == "written", result

    # the real model also copied the prompt's "[nothing to store]" after a card it wrote out
    # ... and once left out the frontmatter's closing `---`
    unclosed = ANSWERED.replace("name: Staging", "name: Deploy").replace("]\n---\n", "]\n", 1)
    fake_llm.add_text(unclosed + "\n[nothing to store]")
    result = await summarizer.summarize(CONVERSATION, date=DAY, session_id="s4", lines=(1, 2))
    assert result.status == "written", result

    fake_llm.add_text("The user mentioned their staging database.")
    other = await summarizer.summarize(CONVERSATION, date=DAY, session_id="s3", lines=(1, 2))
    assert other.status == "failed" and "without saving anything" in other.detail
    assert sorted(p.name for p in (working_dir.root / "memory/2025-01-31").iterdir()) == [
        "deploy-database-deployment-schedule.md",
        "staging-database-deployment-schedule.md",
    ]


# recorded verbatim from Qwen2.5-Coder-1.5B-Instruct Q4_K_M (the billing conversation, temperature
# 0): a `: ` inside the description makes the frontmatter invalid YAML as written
RECORDED = """---
name: PostgreSQL 16 billing move
description: We decided to move billing from MySQL to PostgreSQL 16 next quarter, because of JSONB. Unrelated: I adopted a cat called Miso.
tags: [billing, postgresql, jsonb]
---
# PostgreSQL 16 billing move
## Current state
- What is true now: decisions in force, status, open questions. Rewrite freely.
## Timeline
- 14:03 We decided to move billing from MySQL to PostgreSQL 16 next quarter, because of JSONB.
- 14:04 I adopted a cat called Miso.
## Details
- Facts worth keeping: exact paths, names, commands, versions, errors and their fixes.
```"""


async def test_the_recorded_answer_of_a_real_small_model_is_saved(fake_llm, tmp_path, working_dir):
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_text(RECORDED)
    result = await summarizer.summarize(CONVERSATION, date=DAY, session_id="s5", lines=(1, 2))
    assert result.status == "written", result
    text = (working_dir.root / "memory/2025-01-31/postgresql-16-billing-move.md").read_text()
    assert read_card(text).meta["description"].endswith("Unrelated: I adopted a cat called Miso.")
    assert "- 14:04 I adopted a cat called Miso." in text
