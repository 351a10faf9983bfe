"""Session accounting, marks, memory view and state round-trip (no LLM needed)."""

from __future__ import annotations

import pytest

from remecli.conversation.session import Session
from remecli.llm.blocks import MSG_OVERHEAD, block_tokens, group_atoms
from remecli.llm.tokens import get_token_counter
from tests.memory.conftest import checkpoint, words


def _reply(*blocks):
    from agentscope.message import Msg

    return Msg(name="ReMe", role="assistant", content=list(blocks))


def _call(cid: str, name: str = "ls"):
    from agentscope.message import ToolCallBlock

    return ToolCallBlock(id=cid, name=name, input='{"path": "."}')


def _result(cid: str, text: str = "a.txt", name: str = "ls"):
    from agentscope.message import ToolResultBlock

    return ToolResultBlock(id=cid, name=name, output=text, state="success")


def _text(text: str):
    from agentscope.message import TextBlock

    return TextBlock(text=text)


def _user(text: str):
    from agentscope.message import UserMsg

    return UserMsg(name="user", content=text)


def _recount(session: Session) -> int:
    """Token count of the memory computed from scratch."""
    counter = session.counter
    total = session.overhead_tokens
    if session.summary:
        total += counter.count(session.summary_message_text()) + MSG_OVERHEAD
    for msg in session.context_messages():
        total += sum(block_tokens(counter, b) for b in msg.content) + MSG_OVERHEAD
    return total


@pytest.fixture
def session() -> Session:
    return Session(
        get_token_counter("o200k_base"), max_input_length=4_000, memory_compact_ratio=0.5
    )


def test_sync_adopts_only_the_tail_and_counts_incrementally(session) -> None:
    context = [_user("hello there")]
    records = session.sync(context)
    assert [r["t"] for r in records] == ["msg"]
    reply = _reply(_text("Let me look."), _call("c1"))
    context.append(reply)
    session.sync(context)
    reply.content.append(_result("c1", words(30)))  # agentscope appends to the same message
    records = session.sync(context)
    assert [r["t"] for r in records] == ["blocks"] and len(records[0]["blocks"]) == 1
    assert session.sync(context) == []  # nothing new: nothing recorded, nothing recounted
    assert session.context_tokens() == _recount(session)
    stats = session.estimate_tokens()
    assert stats["total_messages"] == 2 and stats["estimated_tokens"] == _recount(session)
    assert [row["role"] for row in stats["messages_detail"]] == ["user", "assistant"]
    assert stats["context_usage_ratio"] == round(100 * _recount(session) / 4_000, 2)
    assert set(stats) >= {
        "total_messages",
        "compressed_summary_tokens",
        "messages_tokens",
        "estimated_tokens",
        "max_input_length",
        "context_usage_ratio",
        "messages_detail",
    }


def test_rewritten_context_is_reread_and_missing_messages_are_marked_removed(session) -> None:
    first, second = _user("one"), _user("two")
    context = [first, second]
    session.sync(context)
    records = session.sync([second])  # the app dropped the first message
    assert records[-1] == {**records[-1], "t": "removed", "msg_ids": [first.id]}
    assert [m.id for m in session.context_messages()] == [second.id]
    assert session.context_tokens() == _recount(session)


def test_atoms_keep_calls_with_results_even_when_interleaved() -> None:
    blocks = [
        _text("thinking aloud"),
        _call("a"),
        _call("b"),
        _result("b"),
        _text("between"),
        _result("a"),
        _call("c"),
        _result("c"),
        _text("final"),
    ]
    atoms = group_atoms(blocks)
    flat = [[f"{b.type}:{b.id}" if b.type != "text" else b.text for b in atom] for atom in atoms]
    assert flat == [
        ["thinking aloud"],
        ["tool_call:a", "tool_call:b", "tool_result:b", "between", "tool_result:a"],
        ["tool_call:c", "tool_result:c"],
        ["final"],
    ]


def test_plan_marks_blocks_of_a_partly_compacted_reply(session) -> None:
    reply = _reply(
        _text("start"), _call("a"), _result("a", words(80)), _call("b"), _result("b", "short")
    )
    session.add([_user(words(50)), reply])
    plan = session.plan_compaction(keep_recent_tokens=60)
    assert plan.covered[reply.id] == ["text:" + reply.content[0].id, "tool_call:a", "tool_result:a"]
    session.apply_compaction(plan, checkpoint("s"))
    kept = session.context_messages(rebind=True)
    assert len(kept) == 1 and kept[0].id == reply.id
    assert [b.id for b in kept[0].content] == ["b", "b"]
    assert session.is_compressed(reply.id, "tool_call:a") and not session.is_compressed(reply.id)
    memory = session.get_memory()
    assert memory[0].role == "user" and "s 0" in memory[0].get_text_content()
    assert session.context_tokens() == _recount(session)
    # the full message keeps every block for history and the transcript
    assert len(session.all_messages()[1].content) == 5


def test_state_dict_round_trip_restores_the_same_memory(session) -> None:
    reply = _reply(_text("a"), _call("x"), _result("x", words(40)), _text("done"))
    session.add([_user(words(60)), reply, _user("next")])
    session.apply_compaction(session.plan_compaction(30), checkpoint("rt"))
    state = session.state_dict()
    other = Session(session.counter)
    other.load_state_dict(state)
    dump = [m.model_dump() for m in other.get_memory()[1:]]
    assert dump == [m.model_dump() for m in session.get_memory()[1:]]
    assert other.summary == session.summary and other.checkpoints == 1
    assert other.context_tokens() == session.context_tokens()
    assert other.max_input_length == session.max_input_length


def test_update_params_and_clear(session) -> None:
    session.add(_user(words(100)))
    session.update_params(max_input_length=1_000, memory_compact_ratio=0.1, language="zh")
    assert session.threshold_tokens() == 100 and session.over_threshold()
    assert session.estimate_tokens()["max_input_length"] == 1_000
    session.set_summary(checkpoint("z"))
    assert "较早的部分" in session.summary_message_text()
    with pytest.raises(ValueError):
        session.update_params(memory_compact_ratio=1.5)
    session.clear()
    assert session.get_memory() == [] and session.context_tokens() == 0 and session.summary == ""


def test_history_string_has_token_statistics(session) -> None:
    session.add([_user("what is in the folder?"), _reply(_call("c"), _result("c", "a.txt b.txt"))])
    text = session.get_history_str()
    assert "2 messages" in text and "tokens" in text
    assert "what is in the folder?" in text and "a.txt b.txt" in text and "→ tool call ls" in text
