"""The agentscope adapter: our messages survive the trip through agentscope's `Msg`, a
`ToolSpec` becomes the runtime's checked tool, and the loop built by `build_agent_loop`
streams our own events for a real tool-calling reply over the fake OpenAI server."""

from __future__ import annotations

from typing import Any

import pytest

from remecli.config.settings import LLMSettings
from remecli.llm import agent_loop as le
from remecli.llm.agent_loop import build_agent_loop
from remecli.llm.agentscope_adapter import from_msg, runtime_tool, to_msg
from remecli.llm.message import Attachment, Message, Text, Thinking, ToolCall, ToolResult
from remecli.llm.model import build_chat_model
from remecli.llm.tool_spec import ToolSpec
from tests.fakes.fake_openai import FakeOpenAIServer


def test_a_message_keeps_every_part_and_its_id_through_agentscope() -> None:
    message = Message(
        "assistant",
        (
            Thinking("hmm"),
            Text("Let me look."),
            ToolCall("c1", "ls", '{"path": "."}'),
            ToolResult("c1", "ls", "a.md\nb.md", "error"),
            Attachment("image/png", "aGk=", "p.png"),
        ),
        name="ReMe",
    )
    msg = to_msg(message)
    assert [block.type for block in msg.content] == [
        "thinking",
        "text",
        "tool_call",
        "tool_result",
        "data",
    ]
    back = from_msg(msg)
    assert back == message
    assert back.text == "Let me look." and back.tool_calls[0].parsed_arguments() == {"path": "."}
    assert back.tool_results[0].is_error


def test_a_user_message_is_named_user() -> None:
    msg = to_msg(Message.user("hi"))
    assert (msg.role, msg.name, msg.get_text_content()) == ("user", "user", "hi")


async def test_a_tool_spec_becomes_a_checked_runtime_tool() -> None:
    def note(topic: str) -> str:
        """Note a topic.

        Args:
            topic: What to note.
        """
        return f"noted {topic}"

    tool = runtime_tool(ToolSpec.from_function(note, read_only=True, allowed="harmless"))
    assert (tool.name, tool.description, tool.is_read_only) == ("note", "Note a topic.", True)
    assert (await tool.check_permissions()).behavior.value == "allow"
    refused = await tool(topic="tea", extra=1)
    assert "Unknown argument(s) `extra`" in refused.content[0].text


async def test_the_loop_streams_our_events_for_a_tool_calling_reply(
    fake_llm: FakeOpenAIServer,
) -> None:
    ran: list[str] = []

    def lookup(topic: str) -> str:
        """Look a topic up.

        Args:
            topic: What to look up.
        """
        ran.append(topic)
        return f"{topic} is green"

    fake_llm.add_tool_calls([("lookup", {"topic": "tea"})], text="Looking.")
    fake_llm.add_text("Tea is green.", chunk_size=4)
    settings = LLMSettings(base_url=fake_llm.base_url, api_key="sk-test", model_name="fake")
    loop = build_agent_loop(
        build_chat_model(settings),
        name="t",
        system_prompt="You look things up.",
        tools=[ToolSpec.from_function(lookup, read_only=True, allowed="test")],
        max_retries=0,
        max_iters=5,
    )
    events: list[Any] = [event async for event in loop.run([Message.user("What is tea?")])]
    assert ran == ["tea"]
    kinds = [type(event).__name__ for event in events]
    assert kinds[-1] == "ReplyFinished" and kinds.count("ReplyFinished") == 1
    ready = [event for event in events if isinstance(event, le.ToolCallReady)]
    assert [(e.name, e.arguments) for e in ready] == [("lookup", '{"topic": "tea"}')]
    done = [event for event in events if isinstance(event, le.ToolCallFinished)]
    assert [(e.name, e.output, e.state) for e in done] == [("lookup", "tea is green", "success")]
    text = "".join(e.text for e in events if isinstance(e, le.TextDelta))
    assert text.endswith("Tea is green.")
    assert sum(isinstance(e, le.Usage) for e in events) == 2
    final = events[-1]
    assert isinstance(final, le.ReplyFinished)
    assert (final.reason, final.ended, final.message.text) == ("completed", True, "Tea is green.")
    assert fake_llm.last_messages()[0] == {"role": "system", "content": "You look things up."}


@pytest.mark.parametrize("given", [None, []])
async def test_final_reply_needs_a_reply(given: list[le.LoopEvent] | None) -> None:
    async def events() -> Any:
        for event in given or []:
            yield event

    with pytest.raises(RuntimeError, match="without a reply"):
        await le.final_reply(events())
