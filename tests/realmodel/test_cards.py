"""The card writer (the summarizer's card layout) on a real model: faithful, sourced cards."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from remecli.conversation.transcript import Transcript
from remecli.knowledge.cards.card import transcript_line_range
from remecli.knowledge.summary.summarizer import Summarizer
from remecli.notes.layout import WorkingDir
from tests.realmodel.cards_check import check_card, kept_sections
from tests.realmodel.conversations import (
    BILLING,
    DAY,
    FLAKY_TEST,
    FLAKY_TEST_SPLIT,
    STAGING,
    Conversation,
)
from tests.realmodel.real import REAL_MODEL, real_settings

pytestmark = REAL_MODEL


def record(wd: WorkingDir, session_id: str, messages: list[Any]) -> tuple[int, int]:
    """Append `messages` to the session's transcript, as the runtime does; their line range."""
    transcript = Transcript(wd.root / "sessions" / f"{session_id}.jsonl")
    transcript.append([Transcript.message_record(m) for m in messages])
    lines = transcript_line_range(transcript.path, [m.id for m in messages])
    assert lines is not None
    return lines


async def save(summarizer: Summarizer, wd: WorkingDir, session_id: str, messages: list[Any]):
    """One card-writer run over `messages` (recorded first); its result and seconds taken."""
    lines = record(wd, session_id, messages)
    started = time.monotonic()
    result = await summarizer.summarize(messages, date=DAY, session_id=session_id, lines=lines)
    print(f"card writer: {result.status} in {time.monotonic() - started:.0f} s: {result.detail}")
    return result


@pytest.mark.parametrize("conversation", [STAGING, BILLING], ids=lambda c: c.name)
async def test_a_short_conversation_becomes_a_faithful_card(
    tmp_path: Path, conversation: Conversation
) -> None:
    wd = WorkingDir(tmp_path / ".reme").ensure()
    summarizer = Summarizer(real_settings(tmp_path), wd)
    messages = conversation.messages()
    result = await save(summarizer, wd, f"s-{conversation.name}", messages)
    assert result.status == "written", result
    check_card(wd, result.path, f"s-{conversation.name}", messages, conversation.must_keep)
    memory_md = wd.memory_md.read_text(encoding="utf-8")
    print(f"--- MEMORY.md\n{memory_md}")
    entries = [line for line in memory_md.splitlines() if line.startswith("- ")]
    if conversation.in_memory_md:  # an explicit "please remember": one bullet, linking the card
        assert result.path is not None
        card = result.path.relative_to(wd.root).as_posix()
        assert len(entries) == 1 and f"[[{card}]]" in entries[0], memory_md
        assert all(word in entries[0] for word in conversation.in_memory_md), memory_md
    else:
        assert not entries, f"MEMORY.md got an entry nobody asked for:\n{memory_md}"


async def test_a_longer_conversation_updates_its_card_without_dropping_a_line(
    tmp_path: Path,
) -> None:
    wd = WorkingDir(tmp_path / ".reme").ensure()
    summarizer = Summarizer(real_settings(tmp_path), wd)
    first = FLAKY_TEST.messages(FLAKY_TEST.turns[:FLAKY_TEST_SPLIT])
    result = await save(summarizer, wd, "s-long", first)
    assert result.status == "written", result
    check_card(wd, result.path, "s-long", first, FLAKY_TEST.must_keep[:1])
    assert result.path is not None
    before = kept_sections(result.path.read_text(encoding="utf-8"))

    rest = FLAKY_TEST.messages(FLAKY_TEST.turns[FLAKY_TEST_SPLIT:])
    second = await save(summarizer, wd, "s-long", rest)
    assert second.status == "written", second
    assert second.path == result.path, "the continuation made a second card"
    check_card(wd, second.path, "s-long", first + rest, FLAKY_TEST.must_keep)
    after = kept_sections(second.path.read_text(encoding="utf-8"))
    dropped = [line for line in before if line not in after]
    assert not dropped, f"lines dropped from the card: {dropped}"
