"""Property: wherever compaction cuts a random conversation, what is kept is a valid context.

Random sequences of user messages and assistant replies (text, parallel tool calls, results in
any order, several rounds per reply) are compacted twice with random budgets. The kept part never
starts with (or contains) an orphan tool result, never keeps a call without its result, loses no
block, and the strict fake server accepts the request built from it.
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remecli.conversation.session import Session
from remecli.llm.blocks import MSG_OVERHEAD, block_key, block_tokens
from remecli.llm.model import build_chat_model
from remecli.llm.tokens import get_token_counter
from tests.fakes import FakeOpenAIServer
from tests.memory.conftest import checkpoint, make_settings, words


@st.composite
def conversations(draw) -> list:
    from agentscope.message import Msg, TextBlock, ToolCallBlock, ToolResultBlock, UserMsg

    messages = []
    for turn in range(draw(st.integers(1, 6))):
        messages.append(UserMsg(name="user", content=words(draw(st.integers(1, 60)), seed=turn)))
        blocks = []
        rounds = draw(st.integers(0, 4))
        for r in range(rounds):
            if draw(st.booleans()):
                blocks.append(TextBlock(text=words(draw(st.integers(1, 20)), seed=r)))
            ids = [f"c{turn}_{r}_{j}" for j in range(draw(st.integers(1, 3)))]
            blocks += [ToolCallBlock(id=i, name="probe", input='{"path": "x"}') for i in ids]
            for i in draw(st.permutations(ids)):
                size = draw(st.integers(1, 120))
                blocks.append(
                    ToolResultBlock(id=i, name="probe", output=words(size), state="success")
                )
        if not rounds or draw(st.booleans()):
            blocks.append(TextBlock(text=f"answer {turn}"))
        messages.append(Msg(name="ReMe", role="assistant", content=blocks))
    return messages


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer() as fake:
        fake.set_fallback("ok")
        yield fake


def _check_kept(memory: list) -> None:
    seen_calls: set[str] = set()
    for position, msg in enumerate(memory):
        for index, block in enumerate(msg.content):
            if block.type == "tool_call":
                seen_calls.add(block.id)
            elif block.type == "tool_result":
                assert not (position == 0 and index == 0), "kept part starts with a tool result"
                assert block.id in seen_calls, f"orphan tool result {block.id}"
    results = {b.id for m in memory for b in m.content if b.type == "tool_result"}
    assert seen_calls <= results, "a kept tool call lost its result"


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    conversation=conversations(),
    split=st.integers(0, 12),
    budgets=st.tuples(st.integers(0, 1_500), st.integers(0, 1_500)),
    keep_last=st.sampled_from([0, 300]),
)
def test_kept_part_is_always_a_valid_context(
    server, tmp_path, conversation, split, budgets, keep_last
) -> None:
    counter = get_token_counter("o200k_base")
    session = Session(counter)
    cut = min(split, len(conversation))
    covered: list[str] = []
    for part, budget in zip((conversation[:cut], conversation[cut:]), budgets, strict=True):
        session.add(part)
        plan = session.plan_compaction(budget, keep_last_up_to=keep_last)
        assert plan.kept_tokens <= max(budget, keep_last)
        covered += [f"{mid}/{key}" for mid, keys in plan.covered.items() for key in keys]
        session.apply_compaction(plan, checkpoint("p"))
        session.context_messages(rebind=True)

    kept = session.context_messages()
    _check_kept(kept)
    # nothing lost, nothing duplicated: compacted + kept == everything, in order
    everything = [f"{m.id}/{block_key(b)}" for m in conversation for b in m.content]
    kept_keys = [f"{m.id}/{block_key(b)}" for m in kept for b in m.content]
    assert sorted(covered + kept_keys) == sorted(everything)
    assert kept_keys == [k for k in everything if k in set(kept_keys)]
    # the incremental count equals a count from scratch
    scratch = sum(sum(block_tokens(counter, b) for b in m.content) + MSG_OVERHEAD for m in kept)
    scratch += counter.count(session.summary_message_text()) + MSG_OVERHEAD
    assert session.context_tokens() == scratch

    # the strict server accepts the request built from [system, summary, *kept]
    async def send() -> None:
        from agentscope.message import SystemMsg

        model = build_chat_model(make_settings(server, tmp_path).llm, stream=False)
        await model.agent_model()(
            messages=[SystemMsg(name="system", content="test"), *session.get_memory()]
        )

    before = len(server.violations)
    asyncio.run(send())
    assert server.violations[before:] == []
