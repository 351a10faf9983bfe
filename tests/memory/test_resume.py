"""Transcript and resume: the resumed agent sends exactly what the original would have sent."""

from __future__ import annotations

import json

import pytest

from remecli.conversation import persistence
from remecli.conversation.transcript import Transcript, resolve_session_id
from remecli.llm.blocks import block_key
from tests.fakes.messages import content_text
from tests.memory.conftest import Script, text_tool, tool_calls, words


async def _conversation(rig_factory, fake_llm):
    """A conversation with tool calls and two compactions, saved after each turn."""
    tool = text_tool("probe", lambda kw: words(90, seed=len(kw["path"])))
    script = Script(fake_llm)
    rig = rig_factory(tools=[tool], keep_recent_tokens=250)
    for turn in range(8):
        script.add(tool_calls(("probe", {"path": "p" * (turn + 1)})), f"answer {turn}")
        await rig.ask(words(50, seed=turn))
    assert len([n for n in rig.notices if type(n).__name__ == "CompactionDone"]) >= 2
    return rig, script, tool


async def test_resume_restores_the_same_context_the_model_would_get(
    rig_factory, fake_llm, tmp_path
) -> None:
    rig, script, tool = await _conversation(rig_factory, fake_llm)
    saved = json.loads(rig.mw.working_dir.state_file(rig.agent.state.session_id).read_text())
    assert saved["session"]["checkpoints"] >= 2  # autosaved after the last turn

    # a fresh process: a new middleware restores the conversation, a new agent is built on it
    # (the first process is gone, and the lock on its conversation with it)
    rig.mw.conversation.lock.release()
    fresh = rig_factory(tools=[tool])
    state = await fresh.mw.restore("last")
    assert state.session_id == rig.agent.state.session_id
    resumed = rig_factory(tools=[tool], state=state, mw=fresh.mw)
    assert [m.id for m in state.context] == [m.id for m in rig.agent.state.context]
    assert state.summary == rig.agent.state.summary
    fresh.mw.session.overhead_tokens = rig.mw.session.overhead_tokens  # measured at the next step
    assert fresh.mw.session.get_history_str() == rig.mw.session.get_history_str()

    # both agents answer the same next question: the requests are identical
    script.add("answer A", "answer B")
    await rig.ask("and then?")
    await resumed.ask("and then?")
    assert script.agent_calls[-1]["messages"] == script.agent_calls[-2]["messages"]
    assert fake_llm.violations == []


async def test_transcript_keeps_everything_and_implies_the_context(
    rig_factory, fake_llm, tmp_path
) -> None:
    rig, _script, _tool = await _conversation(rig_factory, fake_llm)
    data = rig.mw.transcript.read()
    # every message ever added is there, compressed ones included, with all their blocks
    live = {m.id for m in rig.agent.state.context}
    assert len(data.messages) == len(rig.mw.session.all_messages()) > len(live)
    for full, recorded in zip(rig.mw.session.all_messages(), data.messages, strict=True):
        assert [block_key(b) for b in full.content] == [block_key(b) for b in recorded.content]
    assert len(data.checkpoints) >= 2
    # the transcript alone implies the current context
    context, summary = persistence.rebuild_from_transcript(data)
    assert [(m.id, [block_key(b) for b in m.content]) for m in context] == [
        (m.id, [block_key(b) for b in m.content]) for m in rig.agent.state.context
    ]
    assert summary == rig.mw.session.summary


async def test_resume_without_state_file_rebuilds_from_transcript(
    rig_factory, fake_llm, tmp_path
) -> None:
    rig, script, tool = await _conversation(rig_factory, fake_llm)
    wd = rig.mw.working_dir
    sid = rig.agent.state.session_id
    wd.state_file(sid).unlink()
    with open(wd.transcript_file(sid), "a", encoding="utf-8") as handle:
        handle.write('{"t": "blocks", "msg_id": "trunc')  # a crash mid-write
    rig.mw.conversation.lock.release()  # the crashed process's lock died with it
    fresh = rig_factory(tools=[tool])
    state = await fresh.mw.restore(sid)
    assert [m.id for m in state.context] == [m.id for m in rig.agent.state.context]
    assert fresh.mw.session.summary == rig.mw.session.summary
    resumed = rig_factory(tools=[tool], state=state, mw=fresh.mw)
    script.add("fine", "fine")
    await rig.ask("continue")
    await resumed.ask("continue")
    assert script.agent_calls[-1]["messages"] == script.agent_calls[-2]["messages"]
    assert fake_llm.violations == []


async def test_new_conversation_and_clear(rig_factory, fake_llm, tmp_path) -> None:
    script = Script(fake_llm, steps=["one", "two"])
    rig = rig_factory()
    await rig.ask("hello")
    first = rig.agent.state.session_id
    second = await rig.mw.new_conversation()
    assert second != first and rig.agent.state.context == [] and not rig.agent.state.summary
    assert rig.mw.working_dir.transcript_file(first).exists()  # /new keeps the old one
    await rig.ask("again")
    assert content_text(script.agent_calls[-1]["messages"][1]) == "again"
    await rig.mw.new_conversation(forget=True)  # /clear deletes this conversation's files
    assert not rig.mw.working_dir.transcript_file(second).exists()
    assert not rig.mw.working_dir.state_file(second).exists()
    assert rig.mw.session.get_memory() == []


def test_resolve_session_id_says_what_to_do(tmp_path) -> None:
    with pytest.raises(LookupError, match="Start without resume"):
        resolve_session_id(tmp_path, "last")
    Transcript(tmp_path / "abc.jsonl").append([{"t": "msg"}])
    assert resolve_session_id(tmp_path, "last") == "abc"
    with pytest.raises(LookupError, match="resume=last"):
        resolve_session_id(tmp_path, "nope")
