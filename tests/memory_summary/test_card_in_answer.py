"""A card a small model answers with instead of calling `write` (measured on Qwen2.5-Coder 1.5B
served locally) is saved as the conversation's card, through the same checks as a `write`."""

from __future__ import annotations

from remecli.knowledge.cards.card import read_card
from remecli.knowledge.summary.summarizer import Summarizer
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
    assert result.written == [card, "memory/2025-01-31.md", "MEMORY.md"]  # asked to remember
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


# the real model's way to update a card: the whole card again, old lines left out, new ones added
UPDATED = """```markdown
---
name: Staging database and deploys
description: Staging is pg-stage-7 in Frankfurt; deploys on Fridays with make ship, now also a canary.
tags: [staging, deploy, canary]
---
# Staging database and deploys

## Current state
- Deploys start with a canary on stage-canary-2.

## Timeline
- 09:40 The user added a canary step before deploys.

## Details
- Canary host: stage-canary-2.
```"""


async def test_an_updated_card_given_as_the_answer_is_merged_without_dropping_lines(
    fake_llm, tmp_path, working_dir
):
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_text(ANSWERED)
    first = await summarizer.summarize(CONVERSATION, date=DAY, session_id="s5", lines=(1, 2))
    later = [user("before each deploy we now run a canary on stage-canary-2", "09:40")]
    fake_llm.add_text(UPDATED)
    second = await summarizer.summarize(later, date=DAY, session_id="s5", lines=(3, 3))
    assert second.status == "written" and second.path == first.path, second
    sent = str(fake_llm.chat_requests()[-1].body["messages"][-1]["content"])
    assert "- Deploy command: `make ship`, on Fridays." in sent  # the card, shown: no read needed
    card = read_card(second.path.read_text())
    assert card.meta["name"] == "Staging database and deploys"
    assert card.meta["source_conversation"] == "[[sessions/s5.jsonl#L1-L3]]"
    assert card.body == (
        "# Staging database deployment schedule\n\n"
        "## Current state\n- Deploys start with a canary on stage-canary-2.\n\n"
        "## Timeline\n"
        "- 09:12 The user asked to remember the staging database and the deploy day.\n"
        "- 09:40 The user added a canary step before deploys.\n\n"
        "## Details\n- Deploy command: `make ship`, on Fridays.\n- Canary host: stage-canary-2.\n"
    )


async def test_the_prompts_example_lines_copied_into_a_card_are_dropped(
    fake_llm, tmp_path, working_dir
):
    # the real model's card of "please remember: …" kept the example's `## Details` line
    copied = ANSWERED.replace(
        "- Deploy command: `make ship`, on Fridays.",
        "- Deploy command: `make ship`, on Fridays.\n"
        "- Facts worth keeping: exact paths, names, commands, versions, errors and their fixes.",
    ).replace(
        "## Current state\n",
        "## Current state\n- What is true now: decisions in force, status, open questions. Rewrite freely.\n",
    )
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_text(copied)
    result = await summarizer.summarize(CONVERSATION, date=DAY, session_id="s6", lines=(1, 2))
    assert result.status == "written" and result.path is not None, result
    body = read_card(result.path.read_text()).body
    assert body == read_card(ANSWERED.removesuffix("```")).body


async def test_what_the_model_put_after_the_card_is_not_kept(fake_llm, tmp_path, working_dir):
    # the real model's answer for the first part of the long conversation ended like this
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_text(ANSWERED.removesuffix("```") + "---\n\n[nothing to store]\n")
    result = await summarizer.summarize(CONVERSATION, date=DAY, session_id="s7", lines=(1, 2))
    assert result.status == "written" and result.path is not None, result
    assert read_card(result.path.read_text()).body == read_card(ANSWERED.removesuffix("```")).body
