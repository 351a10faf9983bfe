"""/diff and /undo end to end: the scripted model changes files, the user undoes the reply."""

from __future__ import annotations

from remecli.agent import events as ev
from remecli.commands import session_events as se
from tests.agent.test_chat_session import new_session, read_until_handled
from tests.fakes.messages import content_text


async def test_the_model_writes_a_file_and_undo_restores_it(fake_llm, tmp_path) -> None:
    (tmp_path / "config.toml").write_text("debug = false\n")
    fake_llm.add_tool_calls(
        [
            ("write", {"path": "config.toml", "content": "debug = true\n"}),
            ("write", {"path": "extra/notes.md", "content": "# notes\n"}),
        ]
    )
    fake_llm.add_text("Turned debug on.")
    session = new_session(fake_llm, tmp_path, "tools.approval=never")
    session.submit("turn debug on")
    await read_until_handled(session)
    assert (tmp_path / "config.toml").read_text() == "debug = true\n"

    session.submit("/diff")
    [page] = [e for e in await read_until_handled(session) if isinstance(e, se.ShowPage)]
    assert "“turn debug on”" in page.markdown
    assert "-debug = false" in page.markdown and "+debug = true" in page.markdown
    assert "+++ b/extra/notes.md" in page.markdown and "/undo 1" in page.markdown

    session.submit("/undo")
    events = await read_until_handled(session)
    [notice] = [e for e in events if isinstance(e, ev.Notice) and "Undid" in e.text]
    assert "restored config.toml" in notice.text and "deleted extra/notes.md" in notice.text
    assert (tmp_path / "config.toml").read_text() == "debug = false\n"
    assert not (tmp_path / "extra/notes.md").exists()

    session.submit("/undo")
    events = await read_until_handled(session)
    assert any("already undone" in e.text for e in events if isinstance(e, ev.Notice))
    await session.close()


async def test_undo_refuses_a_file_changed_since_and_says_which(fake_llm, tmp_path) -> None:
    fake_llm.add_tool_calls([("bash", {"command": "echo generated > out.txt"})])
    fake_llm.add_text("Made it.")
    session = new_session(fake_llm, tmp_path, "tools.approval=never")
    session.submit("make out.txt")
    await read_until_handled(session)
    (tmp_path / "out.txt").write_text("edited by hand\n")
    session.submit("/undo")
    [error] = [e for e in await read_until_handled(session) if isinstance(e, ev.ErrorReport)]
    assert "out.txt changed again since reply 1" in error.message
    assert (tmp_path / "out.txt").read_text() == "edited by hand\n"
    await session.close()


async def test_undo_of_an_earlier_reply_names_the_later_one_to_undo_first(
    fake_llm, tmp_path
) -> None:
    (tmp_path / "a.txt").write_text("0\n")
    for n in (1, 2):
        fake_llm.add_tool_calls([("write", {"path": "a.txt", "content": f"{n}\n"})])
        fake_llm.add_text(f"Wrote {n}.")
    session = new_session(fake_llm, tmp_path, "tools.approval=never")
    for n in (1, 2):
        session.submit(f"write {n}")
        await read_until_handled(session)
    session.submit("/undo 1")
    [error] = [e for e in await read_until_handled(session) if isinstance(e, ev.ErrorReport)]
    assert "a.txt changed again since reply 1" in error.message
    assert "Undo the later reply first (/undo 2)" in error.message
    session.submit("/undo 2")
    await read_until_handled(session)
    session.submit("/undo 1")
    events = await read_until_handled(session)
    assert any(
        "Undid reply #1: restored a.txt" in e.text for e in events if isinstance(e, ev.Notice)
    )
    assert (tmp_path / "a.txt").read_text() == "0\n"
    await session.close()


async def test_after_undo_the_model_is_told_once_and_a_replay_shows_only_what_was_typed(
    fake_llm, tmp_path
) -> None:
    (tmp_path / "a.txt").write_text("old\n")
    fake_llm.add_tool_calls([("write", {"path": "a.txt", "content": "new\n"})])
    fake_llm.add_text("Wrote it.")
    fake_llm.add_text("Reading it again.")
    fake_llm.add_text("Fine.")
    session = new_session(fake_llm, tmp_path, "tools.approval=never")
    session.submit("rewrite a.txt")
    await read_until_handled(session)
    session.submit("/undo")
    await read_until_handled(session)
    for line in ("what does a.txt say now?", "thanks"):
        session.submit(line)
        await read_until_handled(session)
    first, second = (
        [content_text(m) for m in r.body["messages"] if m["role"] == "user"]
        for r in fake_llm.chat_requests()[-2:]
    )
    assert first[-1].startswith("what does a.txt say now?\n\n[remecli: the user ran /undo")
    assert "before that reply: a.txt. Read these files again" in first[-1]
    assert "Deleted" not in first[-1]  # nothing was: not "Deleted (…): -."
    assert second[-1] == "thanks" and second[-2] == first[-1]  # told once, kept in the context
    typed = [e.text for e in session.assistant.replay() if isinstance(e, ev.UserMessage)]
    assert typed == ["rewrite a.txt", "what does a.txt say now?", "thanks"]
    await session.close()


def test_the_undo_note_names_only_the_lists_that_have_files() -> None:
    from remecli.agent.model_notes import undo_note

    created = undo_note([], ["hello.py"], "en")
    assert "Deleted (that reply created them): hello.py." in created
    assert "Restored" not in created and ": -" not in created
    both = undo_note(["a.txt"], ["b.txt"], "en")
    assert "before that reply: a.txt. Deleted (that reply created them): b.txt. Read" in both
    zh = undo_note([], ["hello.py"], "zh")
    assert "已删除的文件（由该回复创建）：hello.py。在依赖" in zh and "已恢复" not in zh
