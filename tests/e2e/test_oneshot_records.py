"""Issue 21, item 6: `-p` one-shots are marked (listed in time order with the rest, issue 37.5),
never `resume=last`; agentscope's
log lines stay out of stderr; an empty answer is called empty; a bad `resume=` id says what to do."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from subprocess import CompletedProcess

from remecli.commands import session_events as se
from remecli.commands.chat_session import ChatSession
from tests.agent.conftest import make_settings
from tests.cli_process import run_one_shot
from tests.fakes.messages import content_text


def one_shot(fake_llm, tmp_path: Path, question: str, *settings: str) -> CompletedProcess[str]:
    """`remecli -p QUESTION` on `tmp_path/.reme`, one retry allowed (as a user's config has)."""
    return run_one_shot(
        fake_llm.base_url,
        tmp_path / ".reme",
        question,
        "llm.max_retries=1",
        *settings,
        cwd=tmp_path,
    )


async def _converse(fake_llm, tmp_path: Path) -> None:
    """A real conversation (not a one-shot) through the core session."""
    session = ChatSession(make_settings(fake_llm, tmp_path), cwd=tmp_path)
    session.submit("plan the garden")

    async def answered() -> None:
        async for event in session.events():
            if isinstance(event, se.InputHandled):
                return

    await asyncio.wait_for(answered(), timeout=120)
    await session.close()


async def _open_and_close(fake_llm, tmp_path: Path) -> None:
    """A conversation opened and closed without a message (an empty one)."""
    session = ChatSession(make_settings(fake_llm, tmp_path), cwd=tmp_path)
    await session.start()
    await session.close()


def test_one_shots_are_marked_in_time_order_and_never_resumed_as_last(fake_llm, tmp_path) -> None:
    fake_llm.add_text("Tomatoes first.")
    asyncio.run(_converse(fake_llm, tmp_path))
    fake_llm.add_text("42")
    fake_llm.add_text("blue")
    for question in ("what is six times seven", "what colour is the sky"):
        assert one_shot(fake_llm, tmp_path, question).returncode == 0
    asyncio.run(_open_and_close(fake_llm, tmp_path))
    fake_llm.add_text("We planned the garden.")
    assert one_shot(fake_llm, tmp_path, "where were we", "resume=last").returncode == 0
    resumed = [content_text(m) for m in fake_llm.chat_requests()[-1].body["messages"]]
    assert "plan the garden" in resumed  # the conversation, not the newer one-shots
    assert not any("six times seven" in t or "sky" in t for t in resumed)
    listing = subprocess.run(
        [sys.executable, "-m", "remecli", "sessions", "config=cli",
         f"working_dir={tmp_path / '.reme'}"],
        capture_output=True, text=True, timeout=60,
    ).stdout  # fmt: skip
    rows = [line.split(maxsplit=6)[-1] for line in listing.splitlines()[1:4]]
    assert rows == [
        "plan the garden",
        "(-p) what colour is the sky",
        "(-p) what is six times seven",
    ]
    assert "(1 empty conversation not listed: nothing was said)" in listing  # no row for it
    assert "(-p): a one-shot answer; resume=last never picks it, resume=<id> does" in listing


def test_agentscope_warnings_go_to_the_log_file_not_stderr(fake_llm, tmp_path) -> None:
    fake_llm.set_fallback("nothing")
    fake_llm.add_error(500, "the server hiccuped")
    fake_llm.add_text("fine now")
    proc = one_shot(fake_llm, tmp_path, "hello")
    assert proc.returncode == 0 and proc.stdout.strip() == "fine now"
    assert "_base:__call__" not in proc.stderr and "WARNING |" not in proc.stderr, proc.stderr
    log = (tmp_path / ".reme" / "logs" / "remecli.log").read_text(encoding="utf-8")
    assert "attempt(s) failed for model fake-model" in log


def test_an_empty_answer_is_reported_as_empty(fake_llm, tmp_path) -> None:
    fake_llm.set_fallback("nothing")
    fake_llm.add_text("")
    proc = one_shot(fake_llm, tmp_path, "hello")
    assert proc.returncode != 0
    assert "empty answer" in proc.stderr and "no text and no tool calls" in proc.stderr
    assert "no choices" not in proc.stderr


def test_a_bad_resume_id_says_how_to_list_sessions_in_one_line(fake_llm, tmp_path) -> None:
    proc = one_shot(fake_llm, tmp_path, "hello", "resume=no-such-id")
    assert proc.returncode != 0
    [line] = proc.stderr.strip().splitlines()
    assert "no-such-id" in line and "`remecli sessions`" in line
    assert ".." not in line and "Details" not in line


def test_a_conversation_whose_only_message_failed_gets_its_resume_hint(fake_llm, tmp_path) -> None:
    """Issue 37.4: `remecli sessions` and /resume list it (the transcript keeps the message),
    so the exit line says how to come back to it too."""
    from remecli.commands.frontend import resume_hint
    from remecli.conversation.session_list import list_sessions

    fake_llm.add_error(500, "the server is down")

    async def fail_once() -> str | None:
        session = ChatSession(make_settings(fake_llm, tmp_path, "llm.max_retries=0"), cwd=tmp_path)
        session.submit("plan the garden")
        async for event in session.events():
            if isinstance(event, se.InputHandled):
                break
        hint = resume_hint(session.assistant)
        session_id = session.assistant.context.session_id
        await session.close()
        [listed] = list_sessions(session.assistant.locations.sessions_dir)
        assert listed.session_id == session_id and listed.first_user_line == "plan the garden"
        # (the printed command also names this memory: the test's folder would not find it)
        assert hint is not None
        assert hint.startswith(f"To continue this conversation: remecli resume={session_id} ")
        return hint

    asyncio.run(fail_once())
