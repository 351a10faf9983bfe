"""Self-tests of the fake OpenAI server, part two: context validation (strict mode), embeddings,
agentscope's own client over it, and the server in another process."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.fakes import NO_TURN_LEFT, FakeOpenAIServer, fake_embedding, find_violations
from tests.fakes.clients import PROJECT_ROOT, USER_HI, sync_client

# -- strict validation -------------------------------------------------------------------------

ASSISTANT_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    ],
}
TOOL_RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"}


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        ([], "too short"),
        ([{"role": "user", "content": "x"}, {"role": "system", "content": "s"}], "beginning"),
        ([{"role": "user", "content": "x"}, TOOL_RESULT], "preceeding message with 'tool_calls'"),
        (
            [{"role": "user", "content": "x"}, ASSISTANT_CALL, {"role": "user", "content": "y"}],
            "did not have response messages: call_1",
        ),
        ([{"role": "user", "content": "x"}, ASSISTANT_CALL], "did not have response messages"),
        (
            [
                {"role": "user", "content": "x"},
                ASSISTANT_CALL,
                {"role": "user", "content": "y"},
                TOOL_RESULT,
            ],
            "did not have response messages",
        ),
        ([{"role": "assistant", "content": None}], "got null"),
        ([{"role": "user"}], "messages.[0].content"),
    ],
)
def test_strict_mode_rejects_malformed_context(
    fake_llm: FakeOpenAIServer, messages: list[dict[str, Any]], expected: str
) -> None:
    fake_llm.add_text("not used")
    with pytest.raises(openai.BadRequestError, match=expected.replace("[", r"\[")) as caught:
        sync_client(fake_llm).chat.completions.create(model="m", messages=messages)
    assert caught.value.type == "invalid_request_error"
    assert any(expected in v for v in fake_llm.violations)
    assert fake_llm.pending_turns == 1


def test_non_strict_server_accepts_malformed_context() -> None:
    with FakeOpenAIServer(strict=False) as server:
        server.add_text("fine")
        reply = sync_client(server).chat.completions.create(model="m", messages=[TOOL_RESULT])
        assert reply.choices[0].message.content == "fine"
        assert server.violations == []


def test_well_formed_tool_conversation_has_no_violations() -> None:
    body = {
        "model": "m",
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": [{"type": "function", "function": {"name": "ls", "parameters": {}}}],
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "sys"}]},
            {"role": "user", "content": "list"},
            ASSISTANT_CALL,
            TOOL_RESULT,
            {"role": "assistant", "content": "a.txt"},
            {"role": "user", "content": "thanks"},
        ],
    }
    assert find_violations(body) == []
    bad_args = json.loads(json.dumps(body))
    bad_args["messages"][2]["tool_calls"][0]["function"]["arguments"] = '{"path": '
    assert "not valid JSON" in find_violations(bad_args)[0].message


# -- embeddings and models -------------------------------------------------------------------


def test_embeddings_are_deterministic_in_both_encodings() -> None:
    with FakeOpenAIServer(embedding_dim=8) as server:
        client = sync_client(server)
        default = client.embeddings.create(model="emb", input=["alpha", "beta"])  # base64 wire
        as_float = client.embeddings.create(model="emb", input="alpha", encoding_format="float")
        assert len(default.data) == 2 and len(default.data[0].embedding) == 8
        assert default.data[0].embedding == pytest.approx(fake_embedding("alpha", 8), abs=1e-6)
        assert as_float.data[0].embedding == pytest.approx(fake_embedding("alpha", 8))
        assert default.data[1].embedding != default.data[0].embedding
        sized = client.embeddings.create(model="emb", input="alpha", dimensions=4)
        assert len(sized.data[0].embedding) == 4
        server.add_embedding_error(429, "embedding quota")
        with pytest.raises(openai.RateLimitError):
            client.embeddings.create(model="emb", input="x")


# -- agentscope and a separate process -------------------------------------------------------


async def test_agentscope_openai_chat_model_parses_the_stream(fake_llm: FakeOpenAIServer) -> None:
    from agentscope.credential import OpenAICredential
    from agentscope.message import Msg, TextBlock, ToolCallBlock
    from agentscope.model import OpenAIChatModel

    fake_llm.add_tool_calls(
        [("ls", {"path": "."})], text="Let me look.", usage={"prompt_tokens": 321}
    )
    model = OpenAIChatModel(
        credential=OpenAICredential(api_key="sk-test", base_url=fake_llm.base_url),
        model="fake-model",
        stream=True,
        max_retries=0,
        client_kwargs={"max_retries": 0},
    )
    tool = {"type": "function", "function": {"name": "ls", "parameters": {"type": "object"}}}
    user = Msg(name="user", role="user", content=[TextBlock(text="what is here?")])
    responses = [r async for r in await model([user], tools=[tool])]
    deltas = [b.text for r in responses[:-1] for b in r.content if isinstance(b, TextBlock)]
    assert len(deltas) > 1 and "".join(deltas) == "Let me look."
    final = responses[-1]
    assert final.is_last
    texts = [b.text for b in final.content if isinstance(b, TextBlock)]
    calls = [b for b in final.content if isinstance(b, ToolCallBlock)]
    assert texts == ["Let me look."]
    assert [(c.id, c.name, c.input) for c in calls] == [("call_fake_1", "ls", '{"path": "."}')]
    assert final.usage is not None and final.usage.input_tokens == 321
    assert fake_llm.chat_requests()[0].body["stream_options"] == {"include_usage": True}


async def test_agentscope_agent_tool_loop_passes_strict_validation(
    fake_llm: FakeOpenAIServer,
) -> None:
    from agentscope.agent import Agent
    from agentscope.credential import OpenAICredential
    from agentscope.event import ModelCallEndEvent, TextBlockDeltaEvent, ToolCallStartEvent
    from agentscope.message import Msg, TextBlock
    from agentscope.model import OpenAIChatModel
    from agentscope.tool import FunctionTool, Toolkit

    async def list_dir(path: str) -> str:
        """List a directory.

        Args:
            path: The directory to list.
        """
        return f"a.txt b.txt in {path}"

    fake_llm.add_tool_calls([("list_dir", {"path": "."})], usage={"prompt_tokens": 50})
    fake_llm.add_text("Two files.", chunk_size=3)
    model = OpenAIChatModel(
        credential=OpenAICredential(api_key="sk-test", base_url=fake_llm.base_url),
        model="fake-model",
        max_retries=0,
        client_kwargs={"max_retries": 0},
    )
    toolkit = Toolkit(tools=[FunctionTool(list_dir, is_read_only=True)])
    agent = Agent(name="t", system_prompt="You test.", model=model, toolkit=toolkit)
    question = Msg(name="user", role="user", content=[TextBlock(text="What files?")])
    events = [e async for e in agent.reply_stream(question)]
    assert "".join(e.delta for e in events if isinstance(e, TextBlockDeltaEvent)) == "Two files."
    assert [e.tool_call_name for e in events if isinstance(e, ToolCallStartEvent)] == ["list_dir"]
    assert [e.input_tokens for e in events if isinstance(e, ModelCallEndEvent)][0] == 50
    assert fake_llm.violations == []
    follow_up = fake_llm.last_messages()
    assert [m["role"] for m in follow_up[-2:]] == ["assistant", "tool"]
    assert follow_up[-1] == {
        "role": "tool",
        "tool_call_id": "call_fake_1",
        "content": "a.txt b.txt in .",
        "name": "list_dir",
    }


async def test_serves_a_client_in_another_process(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.add_text("to the subprocess")
    code = (
        "import openai, sys; c = openai.OpenAI(base_url=sys.argv[1], api_key='k', max_retries=0);"
        "print(c.chat.completions.create(model='m', messages=[{'role': 'user', 'content': 'x'}])"
        ".choices[0].message.content)"
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, fake_llm.base_url, stdout=asyncio.subprocess.PIPE
    )
    (chat,) = await fake_llm.wait_for_requests_async(1, timeout=30, path="/v1/chat/completions")
    assert chat.body["messages"] == [{"role": "user", "content": "x"}]
    out, _ = await proc.communicate()
    assert out.decode().strip() == "to the subprocess"


def test_standalone_process_serves_a_script(tmp_path: Path) -> None:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps([{"type": "text", "text": "from the script"}]))
    log = str(tmp_path / "requests.jsonl")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.fake_openai", "--script", str(script), "--log", log],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        client = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=USER_HI)
        assert reply.choices[0].message.content == "from the script"
        with pytest.raises(openai.InternalServerError, match=NO_TURN_LEFT):
            client.chat.completions.create(model="m", messages=USER_HI)
        logged = [json.loads(line) for line in Path(log).read_text().splitlines()]
        assert [r["body"]["messages"] for r in logged] == [USER_HI, USER_HI]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
