"""Each slash command's effect on summary / long-term memory / message history (the seed's table).

| Command  | Compact summary | Long-term memory | Message history |
| /compact | New summary     | Saved            | Keep recent     |
| /new     | Cleared         | Saved            | Cleared         |
| /clear   | Cleared         | Not saved        | Cleared         |
"""

from __future__ import annotations

from remecli.agent import events as ev
from remecli.commands import COMMANDS, dispatch
from tests.agent.conftest import collect
from tests.memory_flows.conftest import daily_file


async def run(assistant, name: str, arg: str = "") -> list:
    return [e async for e in dispatch(assistant, COMMANDS[name], arg)]


def summarizing(assistant_factory, *extra: str):
    # keep_recent_tokens small so /compact has something old to compact
    return assistant_factory("memory.summarize=true", "memory.keep_recent_tokens=20", *extra)


async def chat(assistant, *lines: str) -> None:
    for line in lines:
        events = await collect(assistant, line)
        assert not [e for e in events if isinstance(e, ev.ErrorReport)], events


# makes a line worth a checkpoint: /compact folds nothing shorter (`MIN_FOLD_TOKENS`)
DETAIL = " (in every project and every file we keep, from the Makefiles to the YAML configs)" * 6

CHECKPOINT = """## Goal
Ship the release.
## Constraints & Preferences
- tabs over spaces
## Progress
### Done
- decided the deploy command
### In Progress
- release notes
### Blocked
- none
## Key Decisions
- **make ship**: one command
## Next Steps
1. run make ship
## Critical Context
- Makefile target `ship`
"""


async def test_compact_new_summary_saved_keeps_recent(
    assistant_factory, fake_llm, memory_model, tmp_path
) -> None:
    assistant = summarizing(assistant_factory)
    await chat(
        assistant,
        f"I prefer tabs over spaces{DETAIL}",
        f"we deploy with make ship{DETAIL}",
        "what next?",
    )
    fake_llm.add_text(CHECKPOINT)  # the compactor's answer
    events = await run(assistant, "compact", "deployment")
    done = [e for e in events if isinstance(e, ev.CompactionDone)]
    assert done and done[0].messages_compacted > 0
    state = assistant.agent.state
    assert "## Goal" in str(state.summary)  # new summary
    assert 0 < len(state.context) < 6  # recent messages kept
    lines = await assistant.memory.await_summary_tasks()
    assert lines and daily_file(assistant.working_dir).is_file()  # saved to long-term memory
    assert "I prefer tabs over spaces" in daily_file(assistant.working_dir).read_text()
    compact_request = [r for r in fake_llm.chat_requests() if "deployment" in str(r.body)]
    assert compact_request, "the focus text steers the compaction request"


async def test_new_clears_and_saves(assistant_factory, memory_model, tmp_path) -> None:
    assistant = summarizing(assistant_factory)
    await chat(assistant, "remember the staging host is db-7")
    old_session = assistant.agent.state.session_id
    events = await run(assistant, "new")
    assert any(isinstance(e, ev.Notice) for e in events)
    assert assistant.agent.state.context == [] and not assistant.agent.state.summary
    assert assistant.agent.state.session_id != old_session
    await assistant.memory.await_summary_tasks()
    assert "staging host is db-7" in daily_file(assistant.working_dir).read_text()
    transcript = assistant.working_dir / "sessions" / f"{old_session}.jsonl"
    assert transcript.is_file()  # the old conversation's transcript is kept


async def test_clear_forgets_without_saving(assistant_factory, memory_model, tmp_path) -> None:
    assistant = summarizing(assistant_factory)
    await chat(assistant, "my password hint is purple")
    old_session = assistant.agent.state.session_id
    await run(assistant, "clear")
    assert assistant.agent.state.context == [] and not assistant.agent.state.summary
    assert await assistant.memory.await_summary_tasks() == []
    await assistant.close()
    assert not daily_file(assistant.working_dir).exists()
    sessions = assistant.working_dir / "sessions"
    assert not (sessions / f"{old_session}.jsonl").exists()
    assert not (sessions / f"{old_session}.state.json").exists()
    assert "purple" not in "".join(
        p.read_text()
        for p in assistant.working_dir.rglob("*")
        if p.is_file() and p.suffix in (".md", ".json", ".jsonl")
    )


async def test_history_shows_uncompressed_messages_with_token_stats(
    assistant_factory, memory_model
) -> None:
    assistant = assistant_factory()
    await chat(assistant, "hello history")
    text = assistant.history_markdown()
    assert "hello history" in text and "token" in text.lower()
