"""/memory: what this conversation saved (card, digest nodes, MEMORY.md changes), openable,
with MEMORY.md undone through the version history."""

from __future__ import annotations

import asyncio
from pathlib import Path

from remecli.agent import events as ev
from remecli.commands import session_events as se
from remecli.config.locations import MEMORY_MD_HEADER
from tests.agent.test_chat_session import new_session, read_until_handled
from tests.faults.test_cleared_conversation import _indexed, _until
from tests.memory_flows.test_commands import CHECKPOINT

FACT = "- The user prefers tabs over spaces."


def page(events: list) -> se.ShowPage:
    [shown] = [e for e in events if isinstance(e, se.ShowPage)]
    return shown


def write_node(working_dir: Path, card: str) -> None:
    """A digest node citing `card` (as Auto Dream writes them)."""
    node = working_dir / "digest" / "personal" / "indentation.md"
    node.parent.mkdir(parents=True, exist_ok=True)
    node.write_text(
        "---\nname: Indentation\ndescription: Tabs, not spaces\nkind: personal\n---\n"
        f"The user indents with tabs.\n\n## Sources\n- [[{card.removesuffix('.md')}]]\n"
    )


async def test_memory_shows_card_node_and_memory_md_and_undoes_memory_md(
    fake_llm, memory_model, tmp_path
) -> None:
    session = new_session(
        fake_llm, tmp_path, "memory.summarize=true", "memory.keep_recent_tokens=20"
    )
    session.submit("/memory")
    assert "nothing saved yet" in str(await read_until_handled(session)).lower()
    fake_llm.add_tool_calls(
        [
            (
                "edit",
                {
                    "path": ".reme/MEMORY.md",
                    "old_text": "project facts.",
                    "new_text": "project facts.\n" + FACT,
                },
            )
        ]
    )
    fake_llm.add_text("Noted in MEMORY.md.")
    session.submit("remember that I prefer tabs over spaces")
    await read_until_handled(session)
    memory_md = tmp_path / ".reme" / "MEMORY.md"
    assert FACT in memory_md.read_text()
    session.submit("and we deploy with make ship")
    await read_until_handled(session)
    fake_llm.add_text(CHECKPOINT)
    session.submit("/compact")
    await read_until_handled(session)
    await session.assistant.memory.await_summary_tasks()

    session.submit("/memory")
    shown = page(await read_until_handled(session)).markdown
    cards = list((tmp_path / ".reme" / "memory").glob("*/talk-*.md"))
    assert len(cards) == 1
    card = cards[0].relative_to(tmp_path / ".reme").as_posix()
    assert f"`/memory open {card}`" in shown and f"remecli memory history {card}" in shown
    assert f"{tmp_path / '.reme'}/{card}" in shown
    assert "agent edit" in shown and "`/memory undo MEMORY.md`" in shown
    assert "Auto Dream has not used these cards yet" in shown

    write_node(tmp_path / ".reme", card)
    session.submit("/memory")
    shown = page(await read_until_handled(session)).markdown
    assert "**Indentation** — Tabs, not spaces" in shown
    assert "`/memory open digest/personal/indentation.md`" in shown

    session.submit("/memory open MEMORY.md")
    opened = page(await read_until_handled(session))
    assert opened.title == "MEMORY.md" and FACT in opened.markdown

    session.submit("/memory undo MEMORY.md")
    events = await read_until_handled(session)
    [notice] = [e for e in events if isinstance(e, ev.Notice) and "Restored" in e.text]
    assert "Restored MEMORY.md to version" in notice.text
    assert memory_md.read_text() == MEMORY_MD_HEADER
    await session.close()


async def test_clear_after_a_resume_clears_what_was_said_since_and_says_what_stays(
    fake_llm, memory_model, tmp_path
) -> None:
    """Issue 37.1: /clear of a resumed conversation said "its transcript was deleted and nothing
    was saved" while the card saved at the first exit stayed (citing a deleted transcript)."""
    root = tmp_path / ".reme"
    first = new_session(fake_llm, tmp_path, "memory.summarize=true")
    fake_llm.add_text("Tomatoes first.")
    first.submit("plan the garden")
    await read_until_handled(first)
    session_id = first.assistant.context.session_id
    await first.close()  # summarized: a card citing the conversation
    [card] = [p.relative_to(root).as_posix() for p in (root / "memory").glob("*/talk-*.md")]

    resumed = new_session(
        fake_llm, tmp_path, "memory.summarize=true", "resume=last", "search.watch_debounce_ms=100"
    )
    fake_llm.add_text("Noted.")
    resumed.submit("my locker code is zebra4471")
    await read_until_handled(resumed)
    resumed.submit("/clear")
    notices = [e.text for e in await read_until_handled(resumed) if isinstance(e, ev.Notice)]
    assert notices == [
        f"Cleared what was said since you resumed conversation {session_id}; none of it was "
        f"saved. What it saved before stays: its transcript up to the resume (remecli "
        f"resume={session_id}), its card {card} and the day-page lines made with it; the input "
        f"history keeps what you typed then. To remove a card too: remecli job memory_delete "
        f"--path {card} (kept as a version: remecli memory history PATH, then restore, brings it "
        "back)."
    ]
    await asyncio.to_thread(_until, lambda: _indexed(root, "zebra4471") == 0, 60, "the index")
    wal = root / "index" / "chunks.sqlite-wal"
    gone = lambda: not wal.exists() or b"zebra4471" not in wal.read_bytes()  # noqa: E731
    await asyncio.to_thread(_until, gone, 30, "the WAL")  # while it runs, not only at the exit
    await resumed.close()
    transcript = (root / "sessions" / f"{session_id}.jsonl").read_text()
    assert "plan the garden" in transcript  # what the card cites is still there
    assert (root / card).is_file()
    holding = [p for p in root.rglob("*") if p.is_file() and b"zebra4471" in p.read_bytes()]
    assert holding == []  # nothing of what was cleared is kept anywhere
