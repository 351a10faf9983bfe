"""End to end through the fake server: a tool call written as text runs, and the model sees it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from remecli.config.settings import LLMSettings
from remecli.llm.model import build_chat_model
from tests.fakes import FakeOpenAIServer

CALL_AS_TEXT = (
    "I'll look that up.\n```json\n"
    '{"name": "memory_search", "arguments": {"query": "staging database"}}\n```'
)
# the call: `;` between the fields
MALFORMED_CALL = (
    '```json\n{"name": "memory_write"; "arguments": {"path": "MEMORY.md"; '
    '"content": "Staging: pg-stage-7 (Frankfurt)"}}\n```'
)


async def _run_agent(
    fake_llm: FakeOpenAIServer, *, stream: bool, text_tool_calls: bool = True
) -> tuple[list[dict[str, Any]], str]:
    """Ask once with two tools offered; what the tools were called with, and the final text."""
    from agentscope.agent import Agent
    from agentscope.message import Msg, TextBlock
    from agentscope.tool import FunctionTool, Toolkit

    ran: list[dict[str, Any]] = []

    async def memory_search(query: str) -> str:
        """Search the memory.

        Args:
            query: What to look for.
        """
        ran.append({"tool": "memory_search", "query": query})
        return "MEMORY.md:3 staging database is pg-stage-7"

    async def memory_write(path: str, content: str) -> str:
        """Write a memory file.

        Args:
            path: The file.
            content: What to write.
        """
        ran.append({"tool": "memory_write", "path": path, "content": content})
        return f"wrote {path}"

    settings = LLMSettings(
        base_url=fake_llm.base_url,
        api_key="sk-test",
        model_name="fake-model",
        text_tool_calls=text_tool_calls,
    )
    model = build_chat_model(settings, stream=stream).agent_model()
    tools = [FunctionTool(f, is_read_only=True) for f in (memory_search, memory_write)]
    toolkit = Toolkit(tools=tools)  # read-only: run without asking
    agent = Agent(name="t", system_prompt="You remember.", model=model, toolkit=toolkit)
    question = Msg(name="user", role="user", content=[TextBlock(text="Where is staging?")])
    reply = await agent.reply(question)
    return ran, reply.get_text_content() or ""


@pytest.mark.parametrize("stream", [True, False])
async def test_a_fenced_json_call_runs_and_its_result_goes_back(
    fake_llm: FakeOpenAIServer, stream: bool
) -> None:
    fake_llm.add_text(CALL_AS_TEXT, chunk_size=7)
    fake_llm.add_text("Staging is pg-stage-7.")
    ran, answer = await _run_agent(fake_llm, stream=stream)
    assert ran == [{"tool": "memory_search", "query": "staging database"}]
    assert answer == "Staging is pg-stage-7."
    assert fake_llm.violations == []
    second = fake_llm.chat_requests()[1].body["messages"]
    call_message, result = second[-2], second[-1]
    assert call_message["role"] == "assistant"
    assert call_message["content"] == "I'll look that up."
    (call,) = call_message["tool_calls"]
    assert call["function"]["name"] == "memory_search"
    assert json.loads(call["function"]["arguments"]) == {"query": "staging database"}
    assert result["role"] == "tool"
    assert result["tool_call_id"] == call["id"]
    assert result["content"] == "MEMORY.md:3 staging database is pg-stage-7"


async def test_a_malformed_call_is_repaired_and_run_not_printed(
    fake_llm: FakeOpenAIServer,
) -> None:
    fake_llm.add_text(MALFORMED_CALL)
    fake_llm.add_text("Noted.")
    ran, answer = await _run_agent(fake_llm, stream=True)
    assert ran == [
        {"tool": "memory_write", "path": "MEMORY.md", "content": "Staging: pg-stage-7 (Frankfurt)"}
    ]
    assert answer == "Noted."


async def test_the_setting_turns_it_off(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.add_text(CALL_AS_TEXT)
    ran, answer = await _run_agent(fake_llm, stream=True, text_tool_calls=False)
    assert ran == []
    assert answer == CALL_AS_TEXT
    assert len(fake_llm.chat_requests()) == 1


async def test_json_shown_in_an_answer_is_the_answer(fake_llm: FakeOpenAIServer) -> None:
    shown = 'A record looks like:\n```json\n{"name": "Alice", "arguments": {"age": 31}}\n```'
    fake_llm.add_text(shown)
    ran, answer = await _run_agent(fake_llm, stream=False)
    assert (ran, answer) == ([], shown)


async def _streamed_text(fake_llm: FakeOpenAIServer, first: str) -> tuple[str, list[str]]:
    """What a streamed reply showed as text, and the tools that ran."""
    from agentscope.agent import Agent
    from agentscope.event import TextBlockDeltaEvent, ToolCallStartEvent
    from agentscope.message import Msg, TextBlock
    from agentscope.tool import FunctionTool, Toolkit

    async def memory_search(query: str) -> str:
        """Search the memory.

        Args:
            query: What to look for.
        """
        return "nothing"

    fake_llm.add_text(first, chunk_size=5)
    fake_llm.add_text("Done.")
    settings = LLMSettings(base_url=fake_llm.base_url, api_key="k", model_name="fake-model")
    model = build_chat_model(settings, stream=True).agent_model()
    toolkit = Toolkit(tools=[FunctionTool(memory_search, is_read_only=True)])
    agent = Agent(name="t", system_prompt="You remember.", model=model, toolkit=toolkit)
    question = Msg(name="user", role="user", content=[TextBlock(text="?")])
    events = [e async for e in agent.reply_stream(question)]
    shown = "".join(e.delta for e in events if isinstance(e, TextBlockDeltaEvent))
    return shown, [e.tool_call_name for e in events if isinstance(e, ToolCallStartEvent)]


async def test_a_streamed_text_call_is_not_shown_as_text(fake_llm: FakeOpenAIServer) -> None:
    shown, announced = await _streamed_text(fake_llm, CALL_AS_TEXT)
    assert shown == "I'll look that up.\nDone."  # the prose and the answer, not the call
    assert announced == ["memory_search"]  # shown as a tool call, like a native one
    assert fake_llm.chat_requests()[1].body["messages"][-1]["content"] == "nothing"


async def test_a_code_block_inside_an_answer_is_streamed_whole(fake_llm: FakeOpenAIServer) -> None:
    answer = 'Example:\n```json\n{"a": 1}\n```\nThat is all.'
    shown, ran = await _streamed_text(fake_llm, answer)
    assert (shown, ran) == (answer, [])
    assert len(fake_llm.chat_requests()) == 1
