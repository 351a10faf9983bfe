"""The conversation's state and messages through `remecli.llm.conversation_state`: the saved
form is what earlier versions wrote (read back and written again unchanged), a live agent's
state is changed through the view, and what is not a state or message is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remecli.llm import conversation_state as cs
from remecli.llm.agentscope_state import agent_state

SAVED = Path(__file__).parents[1] / "memory" / "fixtures" / "saved_by_525c467" / "sessions"
SID = "1b757092ab114ae6940e398b064c1bb9"


def _saved_by_525c467() -> tuple[dict, list[dict]]:
    state = json.loads((SAVED / f"{SID}.state.json").read_text(encoding="utf-8"))
    lines = (SAVED / f"{SID}.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    return state["agent_state"], records


def test_a_state_and_messages_saved_by_525c467_are_written_back_as_they_were() -> None:
    saved, records = _saved_by_525c467()
    state = cs.state_from_json(saved)
    assert state.session_id == SID and state.summary.startswith("<conversation-checkpoint")
    assert cs.state_to_json(state) == saved
    for record in records:
        if record["t"] == "msg":
            assert cs.message_to_json(cs.message_from_json(record["msg"])) == record["msg"]
    tool_reply = next(r["msg"] for r in records if r["t"] == "msg" and r["msg"]["role"] != "user")
    blocks = cs.blocks_from_json(tool_reply["content"])
    assert [b.type for b in blocks] == ["text", "tool_call", "tool_result"]
    assert [cs.block_to_json(b) for b in blocks] == tool_reply["content"]


def test_the_live_view_changes_the_agents_own_state() -> None:
    runtime_state = agent_state(cs.new_state("abc"))
    view = cs.live_state(runtime_state)
    message = cs.text_message("user", "hello", id="m1")
    view.context = [message]
    view.summary = "so far"
    view.session_id = "def"
    assert runtime_state.context == [message] and view.context is runtime_state.context
    assert (runtime_state.summary, runtime_state.session_id) == ("so far", "def")
    assert agent_state(view) is runtime_state and cs.live_state(view) is view
    assert cs.message_to_json(message)["content"][0]["text"] == "hello"


def test_new_conversations_get_fresh_ids() -> None:
    first, second = cs.new_state(), cs.new_state()
    assert first.session_id != second.session_id and len(cs.new_session_id()) >= 16
    assert (first.summary, first.context) == ("", [])


@pytest.mark.parametrize(
    "bad",
    [
        {"session_id": "x", "context": "not a list"},
        {"session_id": "x", "context": [{"role": "nobody", "content": []}]},
    ],
)
def test_a_state_of_the_wrong_shape_is_a_value_error(bad: dict) -> None:
    with pytest.raises(ValueError):
        cs.state_from_json(bad)


def test_what_is_not_the_runtimes_is_refused() -> None:
    with pytest.raises(ValueError):
        cs.message_from_json({"role": "user"})
    with pytest.raises(ValueError):
        cs.blocks_from_json([{"type": "no such block"}])
    with pytest.raises(TypeError):
        cs.live_state(object())
    with pytest.raises(TypeError):
        cs.message_to_json(object())  # type: ignore[arg-type]


def test_a_message_with_fewer_blocks_keeps_everything_else() -> None:
    _saved, records = _saved_by_525c467()
    reply = cs.message_from_json(next(r["msg"] for r in records if r["t"] == "msg"))
    reply.content.append(cs.text_block("more"))
    kept = cs.with_blocks(reply, reply.content[1:])
    assert (kept.id, kept.role, kept.name, kept.created_at) == (
        reply.id, reply.role, reply.name, reply.created_at,
    )  # fmt: skip
    assert kept.metadata == reply.metadata and kept.content[0] is reply.content[1]
    assert len(reply.content) == 2  # the original is left as it was
