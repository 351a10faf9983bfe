"""A conversation saved by an earlier remecli (main at 525c467) resumes with this one: its
history is shown, the model receives the earlier turns and the checkpoint, the conversation
goes on, and what is written afterwards is still read by everything that reads sessions.

The fixture (`fixtures/saved_by_525c467/`) was written by that version's TUI against the
fake model: "list the files here please" (an `ls` tool call and its result), "remember that
the garden needs tomatoes first", `/compact` (one checkpoint folding the first exchange), "and
what about the beans?", `/exit`. See its README.md.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

from remecli.agent import events as ev
from remecli.commands import session_events as se
from remecli.commands.chat_session import ChatSession
from remecli.conversation import persistence
from remecli.conversation.transcript import Transcript
from remecli.notes.layout import WorkingDir
from tests.agent.conftest import make_settings
from tests.fakes.messages import content_text

FIXTURE = Path(__file__).parent / "fixtures" / "saved_by_525c467" / "sessions"
SID = "1b757092ab114ae6940e398b064c1bb9"


def _working_dir(tmp_path: Path) -> WorkingDir:
    sessions = tmp_path / ".reme" / "sessions"
    sessions.mkdir(parents=True)
    for path in FIXTURE.iterdir():
        shutil.copy2(path, sessions / path.name)
    return WorkingDir(tmp_path / ".reme")


async def _resume_and_ask(fake_llm, tmp_path: Path, question: str) -> list:
    """Resume the saved conversation through the core session, ask `question`; its events."""
    session = ChatSession(make_settings(fake_llm, tmp_path, f"resume={SID}"), cwd=tmp_path)
    seen: list = []

    async def until_answered() -> None:
        async for event in session.events():
            seen.append(event)
            if isinstance(event, se.InputHandled):
                return

    await session.start()
    session.submit(question)
    await asyncio.wait_for(until_answered(), timeout=120)
    await session.close()
    return seen


def test_a_conversation_saved_by_525c467_resumes_and_goes_on(fake_llm, tmp_path) -> None:
    layout = _working_dir(tmp_path)
    fake_llm.add_text("The beans go in after the tomatoes.")
    seen = asyncio.run(_resume_and_ask(fake_llm, tmp_path, "so what do I plant next?"))

    # the history is shown: the turns still in the context, and that a checkpoint holds the rest
    [replay] = [e for e in seen if isinstance(e, se.Replay)]
    said = [e.text for e in replay.events if isinstance(e, ev.UserMessage)]
    assert said == ["remember that the garden needs tomatoes first", "and what about the beans?"]
    answers = "".join(e.text for e in replay.events if isinstance(e, ev.TextDelta))
    assert "Noted: tomatoes go in first." in answers
    assert any(isinstance(e, ev.Notice) and "checkpoint" in e.text for e in replay.events)
    assert replay.compactions == 1

    # the model receives the checkpoint, the earlier turns and the new question, in order
    [request] = fake_llm.chat_requests()
    texts = [content_text(m) for m in request.body["messages"]]
    assert texts[1].startswith('<conversation-checkpoint number="1">')
    assert "40 garden plan files" in texts[1]
    assert texts[2:] == [
        "remember that the garden needs tomatoes first",
        "Noted: tomatoes go in first.",
        "and what about the beans?",
        "Continuing from before: and what about the beans?",
        "so what do I plant next?",
    ]
    assert fake_llm.violations == []

    # what this version wrote is read back: the state file, the transcript (old and new lines)
    saved = persistence.load_saved(layout, SID)
    assert not saved.from_transcript and saved.problem == ""
    assert [m.role for m in saved.context] == ["user", "assistant"] * 3
    history = Transcript(layout.transcript_file(SID)).read()
    assert history.skipped_lines == 0 and len(history.checkpoints) == 1
    first = history.messages[1]
    assert [b.type for b in first.content] == ["text", "tool_call", "tool_result", "text"]
    assert history.messages[-1].content[0].text == "The beans go in after the tomatoes."

    # `remecli sessions` lists it by its first line, with every message counted
    listing = subprocess.run(
        [sys.executable, "-m", "remecli", "sessions", "--json", "config=cli",
         f"working_dir={tmp_path / '.reme'}"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert listing.returncode == 0, listing.stderr
    [row] = json.loads(listing.stdout)
    assert row["session_id"] == SID and row["first_user_line"] == "list the files here please"
    assert row["messages"] == len(history.messages) == 8


def test_the_fixture_is_what_525c467_wrote(tmp_path) -> None:
    """The fixture keeps that version's shapes (so the test above resumes an old session)."""
    state = json.loads((FIXTURE / f"{SID}.state.json").read_text(encoding="utf-8"))
    assert state["version"] == 1 and state["session"]["checkpoints"] == 1
    first = state["agent_state"]["context"][0]
    assert {"name", "role", "content", "id", "metadata", "created_at"} <= set(first)
    assert first["metadata"] == {"remecli_saved": True}
