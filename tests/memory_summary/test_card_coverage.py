"""A card update keeps the new turns' facts whatever the model does (measured on Qwen2.5-Coder
1.5B: it wrote back the card it was shown without the new turns): code appends each new turn
the card does not cover to its timeline, citing the turn's transcript line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from remecli.conversation.transcript import Transcript
from remecli.knowledge.cards.card import read_card, transcript_line_range
from remecli.knowledge.cards.rules import card_change_problem
from remecli.knowledge.summary.coverage import is_covered
from remecli.knowledge.summary.summarizer import Summarizer
from remecli.notes.layout import WorkingDir
from tests.memory_summary.conftest import DAY, assistant, make_settings, user

CARD = "memory/2025-01-31/atlas-flaky-export-test.md"
# the shape of the real model's card of the first part (facts as near-copies of the turns)
FIRST_CARD = """---
name: Atlas flaky export test
description: test_export_report of atlas failed on CI because of time zones; fixed with freezegun.
tags: [atlas, ci]
---
# Atlas flaky export test

## Current state
- CI is green; the fixture `frozen_clock` lives in tests/conftest.py.

## Timeline
- 10:00 The CI of project atlas fails now and then in test_export_report.
- 10:09 Fix: freeze time with freezegun and pass tz=UTC to export_report().

## Details
- The user prefers fixtures over decorators for freezegun.
"""
FIRST = [
    user("The CI of project atlas fails now and then in test_export_report.", "10:00"),
    assistant("Fix: freeze time with `freezegun` and pass tz=UTC to export_report().", "10:09"),
    user("Done, CI is green. I prefer fixtures over decorators for freezegun.", "10:15"),
]
REST = [
    user("Next: the export is slow for 50,000 rows, it takes 40 seconds.", "11:30"),
    assistant("Writing with write_only=True mode and one shared style brings it to 6 s.", "11:33"),
    user("Ship it. We keep openpyxl; switching to xlsxwriter is not worth it.", "11:40"),
    user("From now on atlas release notes go to docs/CHANGELOG.md, not the wiki.", "14:02"),
    assistant("Sure.", "14:03"),
]


def record(wd: WorkingDir, session_id: str, messages: list[Any]) -> tuple[int, int]:
    """Append `messages` to the session's transcript, as the runtime does; their line range."""
    transcript = Transcript(wd.transcript_file(session_id))
    transcript.append([Transcript.message_record(m) for m in messages])
    lines = transcript_line_range(transcript.path, [m.id for m in messages])
    assert lines is not None
    return lines


async def first_card(fake_llm: Any, summarizer: Summarizer, wd: WorkingDir) -> str:
    fake_llm.add_text(FIRST_CARD)
    result = await summarizer.summarize(
        FIRST, date=DAY, session_id="s1", lines=record(wd, "s1", FIRST)
    )
    assert result.status == "written" and result.path == wd.root / CARD, result
    return result.path.read_text(encoding="utf-8")


async def test_a_card_given_back_unchanged_still_gets_the_new_facts(
    fake_llm, tmp_path: Path, working_dir: WorkingDir
) -> None:
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    before = await first_card(fake_llm, summarizer, working_dir)
    lines = record(working_dir, "s1", REST)
    assert lines == (4, 8)
    fake_llm.add_text(FIRST_CARD)  # what the real model did: the card it was shown, as it was
    result = await summarizer.summarize(REST, date=DAY, session_id="s1", lines=lines)
    assert result.status == "written" and CARD in result.written, result
    after = (working_dir.root / CARD).read_text(encoding="utf-8")
    assert card_change_problem(CARD, before, after) is None  # nothing dropped, timeline appended
    card = read_card(after)
    assert card.meta["source_conversation"] == "[[sessions/s1.jsonl#L1-L8]]"
    timeline = card.body.split("## Timeline\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert timeline[2:] == [
        "- 11:30 user: Next: the export is slow for 50,000 rows, it takes 40 seconds. "
        "[[sessions/s1.jsonl#L4-L4]]",
        "- 11:33 assistant: Writing with write_only=True mode and one shared style brings it to "
        "6 s. [[sessions/s1.jsonl#L5-L5]]",
        "- 11:40 user: Ship it. We keep openpyxl; switching to xlsxwriter is not worth it. "
        "[[sessions/s1.jsonl#L6-L6]]",
        "- 14:02 user: From now on atlas release notes go to docs/CHANGELOG.md, not the wiki. "
        "[[sessions/s1.jsonl#L7-L7]]",
    ]  # "Sure." says nothing: not added
    sent = str(fake_llm.chat_requests()[-1].body["messages"][-1]["content"])
    assert "holds only what was said after this card was last saved" in sent


async def test_a_card_written_back_unchanged_with_the_tool_still_gets_the_new_facts(
    fake_llm, tmp_path: Path, working_dir: WorkingDir
) -> None:
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    before = await first_card(fake_llm, summarizer, working_dir)
    rest = REST[3:4]
    lines = record(working_dir, "s1", rest)
    fake_llm.add_tool_calls([("read", {"path": CARD})])
    fake_llm.add_tool_calls([("write", {"path": CARD, "content": before})])
    fake_llm.add_text("Nothing new.")
    result = await summarizer.summarize(rest, date=DAY, session_id="s1", lines=lines)
    assert result.status == "written", result
    after = (working_dir.root / CARD).read_text(encoding="utf-8")
    assert after.count("docs/CHANGELOG.md") == 1 and "[[sessions/s1.jsonl#L4-L4]]" in after


async def test_an_update_that_covers_the_new_turns_is_kept_as_the_model_wrote_it(
    fake_llm, tmp_path: Path, working_dir: WorkingDir
) -> None:
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    await first_card(fake_llm, summarizer, working_dir)
    lines = record(working_dir, "s1", REST)
    last = "- 10:09 Fix: freeze time with freezegun and pass tz=UTC to export_report().\n"
    updated = FIRST_CARD.replace(
        last,
        last + "- 11:33 The export of 50,000 rows went from 40 to 6 s with openpyxl write_only "
        "mode and one shared style (xlsxwriter is not worth switching to).\n"
        "- 14:02 Release notes of atlas go to docs/CHANGELOG.md from now on, not the wiki.\n",
    )
    fake_llm.add_text(updated)
    result = await summarizer.summarize(REST, date=DAY, session_id="s1", lines=lines)
    assert result.status == "written", result
    body = read_card((working_dir.root / CARD).read_text(encoding="utf-8")).body
    assert body == read_card(updated).body  # nothing appended by code
    assert "[[sessions/" not in body


async def test_small_talk_after_a_card_adds_nothing(
    fake_llm, tmp_path: Path, working_dir: WorkingDir
) -> None:
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    before = await first_card(fake_llm, summarizer, working_dir)
    talk = [user("ok thanks!", "15:00"), assistant("You're welcome.", "15:00")]
    lines = record(working_dir, "s1", talk)
    fake_llm.add_text("[nothing to store]")
    result = await summarizer.summarize(talk, date=DAY, session_id="s1", lines=lines)
    assert result.status == "nothing", result
    assert (working_dir.root / CARD).read_text(encoding="utf-8") == before


def test_coverage_needs_every_name_and_number_and_half_the_words() -> None:
    card = "- Export of 50000 rows: 6 s with write_only mode (PR 412)."
    assert is_covered("Merged as PR #412: write_only mode; export of 50,000 rows in 6 s.", card)
    assert not is_covered("Merged as PR #413: write_only mode, 50,000 rows in 6 s.", card)
    assert not is_covered("We keep openpyxl; switching to xlsxwriter is not worth it.", card)
    assert is_covered("ok, thanks!", card)
    assert is_covered("我们决定把计费迁移到 PostgreSQL 16", "- 决定把计费迁移到 PostgreSQL 16。")
    assert not is_covered("我养了一只叫 Miso 的猫", "- 决定把计费迁移到 PostgreSQL 16。")
