"""Topic cards written by the real summarizer agent (fake LLM server): create, update, refuse."""

from __future__ import annotations

import yaml

from remecli.conversation.transcript import Transcript
from remecli.knowledge.cards.card import read_card, transcript_line_range
from remecli.knowledge.cards.day_page import BLOCK_END, BLOCK_START
from remecli.knowledge.summary.summarizer import Summarizer
from remecli.notes.writer import MemoryWriter
from tests.fakes.messages import content_text
from tests.memory_summary.conftest import (
    DAY,
    assistant,
    first_user_text,
    make_settings,
    tool_messages,
    user,
)

CARD = "memory/2025-01-31/atlas-database-choice.md"
FIRST_CARD = """---
name: Atlas database choice
description: Chose PostgreSQL 16 for project atlas because it needs JSONB.
tags: [atlas, database]
---
# Atlas database choice

## Current state
- Database: PostgreSQL 16 (decided).

## Timeline
- 10:05 Chose PostgreSQL 16 for atlas (needs JSONB).

## Details
- atlas needs JSONB columns.
"""


def meta_of(path) -> dict:
    meta = read_card(path.read_text()).meta
    assert meta is not None
    return meta


async def test_card_created_then_updated(fake_llm, tmp_path, working_dir):
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_tool_calls([("write", {"path": CARD, "content": FIRST_CARD})])
    fake_llm.add_text("Saved the database decision.")
    result = await summarizer.summarize(
        [user("Use PostgreSQL 16 for atlas, we need JSONB", "10:05"), assistant("OK", "10:06")],
        date=DAY,
        session_id="s1",
        lines=(1, 4),
    )
    card = working_dir.root / CARD
    assert result.status == "written", result
    assert result.path == card
    assert result.written == [CARD, "memory/2025-01-31.md"]
    system = content_text(fake_llm.chat_requests()[0].body["messages"][0])
    assert "no card for 2025-01-31 yet" in system and "memory/2025-01-31/<topic-slug>.md" in system
    meta = meta_of(card)
    assert meta == {
        "name": "Atlas database choice",
        "description": "Chose PostgreSQL 16 for project atlas because it needs JSONB.",
        "session_id": "s1",
        "source_conversation": "[[sessions/s1.jsonl#L1-L4]]",
        "date": "2025-01-31",
        "transcript": "[[sessions/s1.md#^L1]]",  # the same line, in the page Obsidian opens
        "tags": ["atlas", "database"],
    }
    page = working_dir.daily_file(DAY).read_text()
    assert f"[[{CARD}|Atlas database choice]]: Chose PostgreSQL 16" in page

    # the conversation continues: the same card is updated, not a second one created
    fake_llm.clear()
    fake_llm.add_tool_calls([("read", {"path": CARD})])
    fake_llm.add_handler(
        lambda body: _edit_turn(
            [
                (
                    "- Database: PostgreSQL 16 (decided).\n",
                    "- Database: PostgreSQL 16 (decided); migrations with alembic.\n",
                ),
                (
                    "- 10:05 Chose PostgreSQL 16 for atlas (needs JSONB).\n",
                    "- 10:05 Chose PostgreSQL 16 for atlas (needs JSONB).\n"
                    "- 14:30 Migrations run with `alembic upgrade head`.\n",
                ),
            ]
        )
    )
    fake_llm.add_text("Added the migration command.")
    result = await summarizer.summarize(
        [user("migrations: alembic upgrade head", "14:30")],
        date=DAY,
        session_id="s1",
        lines=(5, 9),
    )
    assert result.status == "written", result
    assert sorted(p.name for p in card.parent.iterdir()) == ["atlas-database-choice.md"]
    system = content_text(fake_llm.chat_requests()[0].body["messages"][0])
    assert f"already has its card `{CARD}`" in system
    text = card.read_text()
    assert "- 10:05 Chose PostgreSQL 16" in text and "- 14:30 Migrations run" in text
    assert "migrations with alembic." in text and "(decided).\n" not in text
    assert meta_of(card)["source_conversation"] == "[[sessions/s1.jsonl#L1-L9]]"


def _edit_turn(pairs):
    from tests.fakes.turns import ToolCallsTurn, make_tool_calls

    return ToolCallsTurn(
        make_tool_calls(
            [("edit", {"path": CARD, "old_text": old, "new_text": new}) for old, new in pairs]
        )
    )


async def test_card_changes_that_drop_lines_are_refused(fake_llm, tmp_path, working_dir):
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_tool_calls([("write", {"path": CARD, "content": FIRST_CARD})])
    fake_llm.add_text("Saved.")
    await summarizer.summarize([user("PostgreSQL 16", "10:05")], date=DAY, session_id="s1")
    card = working_dir.root / CARD
    before = card.read_text()
    rewritten_timeline = before.replace("- 10:05 Chose", "- 10:05 Picked")
    without_details = before.replace("- atlas needs JSONB columns.\n", "")
    fake_llm.clear()
    fake_llm.add_tool_calls([("read", {"path": CARD})])
    fake_llm.add_tool_calls(
        [
            ("write", {"path": CARD, "content": rewritten_timeline}),
            ("write", {"path": CARD, "content": without_details}),
            ("write", {"path": "memory/2025-01-31/another-card.md", "content": FIRST_CARD}),
            ("write", {"path": CARD, "content": before.replace("description: Chose", "x: y")}),
        ]
    )
    fake_llm.add_text("Nothing changed.")
    result = await summarizer.summarize([user("no", "11:00")], date=DAY, session_id="s1")
    answers = tool_messages(fake_llm.chat_requests()[2].body)[1:]
    assert "`## timeline` of" in answers[0] and "append-only" in answers[0], answers[0]
    assert "drop 1 line(s)" in answers[1] and "atlas needs JSONB" in answers[1], answers[1]
    assert f"This conversation's card is {CARD}" in answers[2], answers[2]
    assert "needs `description`" in answers[3], answers[3]
    assert all("Nothing was written" in a or "refused" in a for a in answers)
    assert card.read_text() == before
    assert not (working_dir.root / "memory/2025-01-31/another-card.md").exists()
    assert result.status == "failed"  # it saved nothing and did not say [nothing to store]


async def test_day_page_block_regenerated_user_text_kept(fake_llm, tmp_path, working_dir):
    page = working_dir.daily_file(DAY)
    page.write_text(
        "# 2025-01-31\n\n- 09:00 An entry of the older layout.\n\nMy own notes, by hand.\n"
    )
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_tool_calls([("write", {"path": CARD, "content": FIRST_CARD})])
    fake_llm.add_text("Saved.")
    await summarizer.summarize([user("PostgreSQL 16", "10:05")], date=DAY, session_id="s1")
    text = page.read_text()
    assert text.startswith("# 2025-01-31\n\n" + BLOCK_START + "\n- [[" + CARD)
    assert "- 09:00 An entry of the older layout.\n" in text and "My own notes, by hand." in text
    # the user edits outside the block; a second card regenerates the block only
    page.write_text(text + "More notes.\n")
    second = FIRST_CARD.replace("Atlas database choice", "Deploy on Fridays").replace(
        "Chose PostgreSQL 16 for project atlas because it needs JSONB.",
        "The team deploys atlas with `make ship` on Fridays only.",
    )
    fake_llm.clear()
    fake_llm.add_tool_calls(
        [("write", {"path": "memory/2025-01-31/deploy-on-fridays.md", "content": second})]
    )
    fake_llm.add_text("Saved.")
    await summarizer.summarize([user("deploy fridays", "12:00")], date=DAY, session_id="s2")
    text = page.read_text()
    block = text[text.index(BLOCK_START) : text.index(BLOCK_END)]
    assert block.count("- [[") == 2 and "Deploy on Fridays]]: The team deploys" in block
    assert text.endswith("My own notes, by hand.\nMore notes.\n")
    # nothing changed in the cards: the page is not rewritten
    stamp = page.stat().st_mtime_ns
    from remecli.knowledge.cards.day_page import refresh_day_page

    assert refresh_day_page(working_dir, DAY, MemoryWriter(working_dir.root)) is False
    assert page.stat().st_mtime_ns == stamp


async def test_write_after_reading_one_page_is_refused(fake_llm, tmp_path, working_dir):
    """Issue 15.1: a `write` built from page 1 of a 3,000-line day file must not drop the rest."""
    page = working_dir.daily_file(DAY)
    original = "# 2025-01-31\n\n" + "".join(f"- 09:00 Entry {n}.\n" for n in range(3_000))
    page.write_text(original)
    daily = "memory/2025-01-31.md"

    def write_first_page(body: dict):
        from tests.fakes.turns import ToolCallsTurn, make_tool_calls

        first_page = tool_messages(body)[-1].split("\n", 1)[1]  # after the "[… lines 1-2000 …]"
        content = first_page + "- 10:00 New entry.\n"
        return ToolCallsTurn(make_tool_calls([("write", {"path": daily, "content": content})]))

    fake_llm.add_tool_calls([("read", {"path": daily})])
    fake_llm.add_handler(write_first_page)
    fake_llm.add_text("Wrote it.")
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    result = await summarizer.summarize([user("new entry", "10:00")], date=DAY)
    answer = tool_messages(fake_llm.chat_requests()[2].body)[-1]
    assert "lines 1-2000 of 3002" in tool_messages(fake_llm.chat_requests()[1].body)[0]
    assert answer.startswith("Refused: this `write` would drop 1002 of the 3001 lines"), answer
    assert "Entry 1998" in answer and "999 more" in answer
    assert "Use `edit`" in answer
    assert page.read_text() == original
    assert result.status == "failed"


async def test_card_prompts_follow_the_language(fake_llm, tmp_path, working_dir):
    for language, words in (
        ("", ("topic cards", "## Timeline")),
        ("zh", ("主题卡片", "## 时间线")),
    ):
        fake_llm.clear()
        fake_llm.add_text("[nothing to store]")
        settings = make_settings(fake_llm, tmp_path, language=language)
        result = await Summarizer(settings, working_dir).summarize(
            [user("hi", "10:00")], date=DAY, session_id="s1"
        )
        assert result.status == "nothing"
        body = fake_llm.chat_requests()[0].body
        system = content_text(body["messages"][0])
        assert all(word in system for word in words), system[:200]
        assert "[10:00] user: hi" in first_user_text(body)


def test_transcript_line_range(tmp_path):
    transcript = Transcript(tmp_path / "s.jsonl")
    msgs = [user(f"m{n}", f"10:0{n}") for n in range(4)]
    transcript.append([Transcript.message_record(m) for m in msgs[:2]])
    transcript.append([Transcript.checkpoint_record("sum", {})])
    transcript.append([Transcript.message_record(m) for m in msgs[2:]])
    transcript.append([Transcript.blocks_record(msgs[1].id, [])])
    assert transcript_line_range(transcript.path, [msgs[1].id, msgs[2].id]) == (2, 6)
    assert transcript_line_range(transcript.path, [msgs[3].id]) == (5, 5)
    assert transcript_line_range(transcript.path, ["nope"]) is None
    assert transcript_line_range(tmp_path / "missing.jsonl", [msgs[0].id]) is None
    assert yaml.safe_load("a: 1") == {"a": 1}


async def test_memory_aware_fake_handles_the_card_layout(fake_llm, tmp_path, working_dir):
    """The shared fake model (tests/fakes) writes and extends cards through the real tools."""
    from tests.fakes.memory_model import MemoryAwareModel

    fake_llm.set_fallback(MemoryAwareModel())
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    first = await summarizer.summarize([user("alpha line", "10:00")], date=DAY, session_id="s9")
    assert first.status == "written", first
    second = await summarizer.summarize([user("beta line", "11:00")], date=DAY, session_id="s9")
    assert second.status == "written" and second.path == first.path, second
    text = first.path.read_text()
    assert "- said: alpha line\n- said: beta line\n" in text
    assert "session_id: s9" in text


def test_card_rules_in_chinese_sections():
    from remecli.knowledge.cards.rules import card_change_problem

    old = "# 主题\n\n## 当前状态\n- 旧状态\n\n## 时间线\n- 10:00 第一条\n\n## 细节\n- 事实甲\n"
    rewritten_state = old.replace("- 旧状态", "- 新状态") + "- 事实乙\n"
    appended = old.replace("- 10:00 第一条\n", "- 10:00 第一条\n- 11:00 第二条\n")
    assert card_change_problem("c.md", old, rewritten_state) is None
    assert card_change_problem("c.md", old, appended) is None
    changed_timeline = old.replace("第一条", "改过的")
    assert "append-only" in (card_change_problem("c.md", old, changed_timeline) or "")
    dropped = old.replace("- 事实甲\n", "")
    assert "drop 1 line(s)" in (card_change_problem("c.md", old, dropped) or "")
    no_section = old.replace("## 细节\n- 事实甲\n", "- 事实甲\n")
    assert "would disappear" in (card_change_problem("c.md", old, no_section) or "")
