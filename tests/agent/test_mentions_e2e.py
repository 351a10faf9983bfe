"""`@file` mentions through the fake server: the model gets the file, paged like `read`."""

from __future__ import annotations

from remecli.agent import events as ev
from remecli.commands import session_events as se
from remecli.tools.mentions import mentioned_files, path_options
from tests.agent.test_chat_session import new_session, read_until_handled
from tests.fakes.messages import content_text
from tests.tools.conftest import make_ctx
from tests.tools.test_ls_read import _png


def last_user_message(fake_llm) -> dict:
    return [m for m in fake_llm.chat_requests()[-1].body["messages"] if m["role"] == "user"][-1]


async def test_a_mentioned_file_is_attached_and_the_chat_shows_the_mention(
    fake_llm, tmp_path
) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    (tmp_path / "long.log").write_text("".join(f"entry {n}\n" for n in range(1, 3001)))
    fake_llm.add_text("Seen.")
    session = new_session(fake_llm, tmp_path)
    session.submit("compare @notes.txt with @long.log, then mail bob@example.com")
    events = await read_until_handled(session)
    shown = [e.text for e in events if isinstance(e, se.UserTurn)]
    assert shown == ["compare @notes.txt with @long.log, then mail bob@example.com"]
    sent = content_text(last_user_message(fake_llm))
    assert sent.startswith("compare @notes.txt with @long.log, then mail bob@example.com")
    assert (
        "[Attached @notes.txt, as the `read` tool shows it:]\n     1\talpha\n     2\tbeta" in sent
    )
    assert "[Attached @long.log" in sent and "  2000\tentry 2000" in sent
    assert "entry 2001" not in sent
    assert "[Showing lines 1-2000 of 3000. Use offset=2001 to continue.]" in sent
    await session.close()


async def test_an_image_is_attached_as_an_image_when_the_model_takes_images(
    fake_llm, tmp_path
) -> None:
    (tmp_path / "shot.png").write_bytes(_png(32, 16))
    fake_llm.add_text("A tiny picture.")
    fake_llm.add_text("Still tiny.")
    session = new_session(fake_llm, tmp_path, "llm.supports_images=true")
    session.submit("what is in @shot.png?")
    await read_until_handled(session)
    parts = last_user_message(fake_llm)["content"]
    assert [p["type"] for p in parts] == ["text", "image_url"]
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    await session.close()

    elsewhere = tmp_path / "elsewhere"  # a second memory (never the shared temp root's parent)
    elsewhere.mkdir()
    session = new_session(fake_llm, elsewhere, f"tools.workspace={tmp_path}")
    session.submit("and now @shot.png")
    await read_until_handled(session)
    sent = last_user_message(fake_llm)["content"]
    assert isinstance(sent, str) and "PNG image, 32x16 pixels" in sent
    assert "does not take images" in sent
    await session.close()


def test_mentions_and_path_completion_stay_in_the_workspace(tmp_path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print()\n")
    (tmp_path / "setup.cfg").write_text("")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".env").write_text("")
    ctx = make_ctx(tmp_path)
    text = "see @src/main.py. and @setup.cfg, not @nobody or @../etc/passwd or @/etc/hosts"
    assert mentioned_files(text, ctx) == ["src/main.py", "setup.cfg"]
    assert [o.path for o in path_options(tmp_path, "s")] == ["setup.cfg", "src/"]
    assert [o.path for o in path_options(tmp_path, "src/m")] == ["src/main.py"]
    assert [o.path for o in path_options(tmp_path, ".")] == [".env"]
    assert path_options(tmp_path, "../") == []


async def test_a_resumed_conversation_shows_the_mention_not_the_content(fake_llm, tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("secret plan\n")
    fake_llm.add_text("Read it.")
    session = new_session(fake_llm, tmp_path)
    session.submit("summarize @notes.txt")
    await read_until_handled(session)
    await session.close()
    resumed = new_session(fake_llm, tmp_path, "resume=last")
    await resumed.start()
    replay = None
    async for event in resumed.events():
        if isinstance(event, se.Replay):
            replay = event
            break
    assert replay is not None
    [user] = [e for e in replay.events if isinstance(e, ev.UserMessage)]
    assert user.text == "summarize @notes.txt"
    await resumed.close()


async def test_a_mentioned_file_that_is_not_there_is_said_to_user_and_model(
    fake_llm, tmp_path
) -> None:
    fake_llm.add_text("There is no such file.")
    session = new_session(fake_llm, tmp_path)
    session.submit("what is in @nosuch.txt? ask @alice")
    events = await read_until_handled(session)
    notes = [e.text for e in events if isinstance(e, ev.Notice) and e.kind == "warning"]
    assert notes == [
        f"@nosuch.txt: no such file in the workspace {tmp_path.resolve()}; sent as plain "
        "text, nothing attached"
    ]
    sent = content_text(last_user_message(fake_llm))
    assert sent == (
        "what is in @nosuch.txt? ask @alice\n\n[Not attached: @nosuch.txt: no such file in "
        f"the workspace {tmp_path.resolve()}]"
    )
    await session.close()
    resumed = new_session(fake_llm, tmp_path, "resume=last")
    await resumed.start()
    async for event in resumed.events():
        if isinstance(event, se.Replay):
            [user] = [e for e in event.events if isinstance(e, ev.UserMessage)]
            assert user.text == "what is in @nosuch.txt? ask @alice"  # as typed
            break
    await resumed.close()
