"""The summarizer agent against the fake LLM server: create, merge, nothing, refusals, races."""

from __future__ import annotations

from pathlib import Path

from remecli.knowledge.summary.summarizer import NOTHING_MARKER, Summarizer
from tests.fakes.turns import ToolCallsTurn, make_tool_calls
from tests.memory_summary.conftest import (
    DAILY,
    DAY,
    assistant,
    first_user_text,
    make_settings,
    tool_messages,
    user,
)


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Bytes and mtime of every file under `root`."""
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


async def test_daily_file_created_then_merged(fake_llm, tmp_path, working_dir):
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    first = "# 2025-01-31\n\n- 10:05 Chose PostgreSQL 16 for project atlas (needs JSONB).\n"
    fake_llm.add_tool_calls([("read", {"path": DAILY})])
    fake_llm.add_tool_calls([("write", {"path": DAILY, "content": first})])
    fake_llm.add_text("Saved the database decision.")
    result = await summarizer.summarize(
        [
            user("Let's use PostgreSQL 16 for atlas, we need JSONB", "10:05"),
            assistant("OK", "10:06"),
        ],
        date=DAY,
    )
    assert result.status == "written", result
    assert result.path == working_dir.daily_file(DAY)
    assert result.written == [DAILY]
    assert result.path.read_text() == first
    requests = fake_llm.chat_requests()
    transcript = first_user_text(requests[0].body)
    assert "[10:05] user: Let's use PostgreSQL 16 for atlas" in transcript
    assert "[10:06] assistant: OK" in transcript
    assert "does not exist yet" in tool_messages(requests[1].body)[0]

    fake_llm.clear()
    line2 = "- 14:30 Atlas migrations run with `alembic upgrade head`."
    fake_llm.add_tool_calls([("read", {"path": DAILY})])
    old = "- 10:05 Chose PostgreSQL 16 for project atlas (needs JSONB).\n"
    fake_llm.add_tool_calls(
        [("edit", {"path": DAILY, "old_text": old, "new_text": old + line2 + "\n"})]
    )
    fake_llm.add_text("Added the migration command.")
    result = await summarizer.summarize(
        [user("migrations: alembic upgrade head", "14:30")], date=DAY
    )
    assert result.status == "written", result
    assert result.path.read_text() == first + line2 + "\n"
    # the agent saw the existing entry before editing (it read the file first)
    assert "Chose PostgreSQL 16" in tool_messages(fake_llm.chat_requests()[1].body)[0]


async def test_nothing_to_store_leaves_files_untouched(fake_llm, tmp_path, working_dir):
    daily = working_dir.daily_file(DAY)
    daily.write_text("# 2025-01-31\n\n- 09:00 Existing entry.\n")
    before = snapshot(working_dir.root)
    fake_llm.add_tool_calls([("read", {"path": DAILY})])
    fake_llm.add_text(NOTHING_MARKER)
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    result = await summarizer.summarize(
        [user("hi", "10:00"), assistant("Hello!", "10:00")], date=DAY
    )
    assert result.status == "nothing"
    assert snapshot(working_dir.root) == before


async def test_nothing_without_any_message_text(fake_llm, tmp_path, working_dir):
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    result = await summarizer.summarize([], date=DAY)
    assert result.status == "nothing"
    assert fake_llm.chat_requests() == []


async def test_paths_outside_the_memory_files_are_refused(fake_llm, tmp_path, working_dir):
    outside = tmp_path / "escape.md"
    calls = [
        ("write", {"path": "../escape.md", "content": "x"}),
        ("read", {"path": str(tmp_path / "secret.md")}),
        ("write", {"path": "memory/notes.txt", "content": "x"}),
        ("write", {"path": "sessions/x.md", "content": "x"}),
    ]
    (tmp_path / "secret.md").write_text("top secret")
    fake_llm.add_tool_calls(calls)
    fake_llm.add_text(NOTHING_MARKER)
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    result = await summarizer.summarize([user("remember nothing", "10:00")], date=DAY)
    assert result.status == "nothing"
    answers = tool_messages(fake_llm.chat_requests()[1].body)
    assert len(answers) == 4
    assert all("is refused" in answer and "MEMORY.md" in answer for answer in answers), answers
    assert not any("top secret" in answer for answer in answers)
    assert not outside.exists()
    assert not (working_dir.memory_dir / "notes.txt").exists()
    assert not (working_dir.sessions_dir / "x.md").exists()


async def test_user_edit_between_read_and_edit_is_kept(fake_llm, tmp_path, working_dir):
    daily = working_dir.daily_file(DAY)
    daily.write_text("# 2025-01-31\n\n- 10:05 Chose PostgreSQL 16.\n")
    mine = "- 10:05 Chose PostgreSQL 16. (user: agreed with Bob, do not change)\n"
    new_entry = "- 11:00 Tests run with `make check`.\n"

    def user_edits_then_agent_edits(body: dict) -> ToolCallsTurn:
        daily.write_text(daily.read_text().replace("- 10:05 Chose PostgreSQL 16.\n", mine))
        old = "- 10:05 Chose PostgreSQL 16.\n"
        return ToolCallsTurn(
            make_tool_calls(
                [("edit", {"path": DAILY, "old_text": old, "new_text": old + new_entry})]
            )
        )

    fake_llm.add_tool_calls([("read", {"path": DAILY})])
    fake_llm.add_handler(user_edits_then_agent_edits)
    fake_llm.add_tool_calls([("read", {"path": DAILY})])  # the agent re-reads after the error
    fake_llm.add_tool_calls(
        [("edit", {"path": DAILY, "old_text": mine, "new_text": mine + new_entry})]
    )
    fake_llm.add_text("Saved the test command.")
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    result = await summarizer.summarize([user("tests: make check", "11:00")], date=DAY)
    assert result.status == "written", result
    requests = fake_llm.chat_requests()
    failed_edit = tool_messages(requests[2].body)[-1]
    assert "read it again" in failed_edit, failed_edit
    assert "do not change" in tool_messages(requests[3].body)[-1]  # the re-read saw the user line
    assert daily.read_text() == "# 2025-01-31\n\n" + mine + new_entry


async def test_write_refused_when_the_file_changed_since_read(fake_llm, tmp_path, working_dir):
    daily = working_dir.daily_file(DAY)
    daily.write_text("# 2025-01-31\n\n- 09:00 A.\n")
    user_line = "- 09:30 Typed by the user.\n"

    def user_appends_then_agent_writes(body: dict) -> ToolCallsTurn:
        with daily.open("a") as out:
            out.write(user_line)
        stale = "# 2025-01-31\n\n- 09:00 A.\n- 10:00 B.\n"
        return ToolCallsTurn(make_tool_calls([("write", {"path": DAILY, "content": stale})]))

    merged = "# 2025-01-31\n\n- 09:00 A.\n" + user_line + "- 10:00 B.\n"
    fake_llm.add_tool_calls([("read", {"path": DAILY})])
    fake_llm.add_handler(user_appends_then_agent_writes)
    fake_llm.add_tool_calls([("read", {"path": DAILY})])
    fake_llm.add_tool_calls([("write", {"path": DAILY, "content": merged})])
    fake_llm.add_text("Saved B.")
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    result = await summarizer.summarize([user("B", "10:00")], date=DAY)
    assert result.status == "written"
    assert "changed since you read it" in tool_messages(fake_llm.chat_requests()[2].body)[-1]
    assert daily.read_text() == merged


async def test_failure_is_reported_not_raised(fake_llm, tmp_path, working_dir):
    fake_llm.add_error(500, "upstream exploded")
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    result = await summarizer.summarize([user("keep me", "10:00")], date=DAY)
    assert result.status == "failed"
    assert not result.ok
    assert result.detail
    assert not working_dir.daily_file(DAY).exists()


async def test_iterations_are_bounded(fake_llm, tmp_path, working_dir):
    fake_llm.set_fallback(lambda body: ToolCallsTurn(make_tool_calls([("read", {"path": DAILY})])))
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir, max_iters=3)
    result = await summarizer.summarize([user("loop forever", "10:00")], date=DAY)
    assert result.status == "failed"
    assert "3 steps" in result.detail
    assert len(fake_llm.chat_requests()) <= 4


async def test_answer_without_tools_or_marker_is_a_failure(fake_llm, tmp_path, working_dir):
    fake_llm.add_text("Here is a summary: the user said hi.")
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    result = await summarizer.summarize([user("hi", "10:00")], date=DAY)
    assert result.status == "failed"
    assert NOTHING_MARKER in result.detail


async def test_large_conversation_is_summarized_in_chunks(fake_llm, tmp_path, working_dir):
    settings = make_settings(fake_llm, tmp_path, max_input_length=2_000)
    words = " ".join(f"word{i}" for i in range(300))  # ~600 tokens per message
    messages = [user(f"{n}: {words}", f"10:{n:02d}") for n in range(6)]
    fake_llm.set_fallback(NOTHING_MARKER)
    result = await Summarizer(settings, working_dir).summarize(messages, date=DAY)
    assert result.status == "nothing"
    transcripts = [first_user_text(r.body) for r in fake_llm.chat_requests()]
    assert len(transcripts) >= 3
    for n in range(6):  # every message reached the model exactly once
        assert sum(f"[10:{n:02d}] user: {n}:" in t for t in transcripts) == 1
