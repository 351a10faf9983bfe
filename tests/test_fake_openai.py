"""Self-tests of the fake OpenAI server, driven by the real ``openai`` client and agentscope."""

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

USER_HI = [{"role": "user", "content": "hi"}]
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def sync_client(server: FakeOpenAIServer, **kwargs: Any) -> openai.OpenAI:
    """A real openai client pointed at the fake server, without SDK retries."""
    return openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0, **kwargs)


def async_client(server: FakeOpenAIServer, **kwargs: Any) -> openai.AsyncOpenAI:
    """The async flavour of :func:`sync_client`."""
    return openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0, **kwargs)


def collect_tool_calls(chunks: list[Any]) -> dict[int, dict[str, str]]:
    """Rebuild streamed tool calls by index the way OpenAI clients do."""
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or []:
                call = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
                call["id"] += delta.id or ""
                call["name"] += (delta.function and delta.function.name) or ""
                call["arguments"] += (delta.function and delta.function.arguments) or ""
    return calls


# -- text ------------------------------------------------------------------------------------


def test_sync_stream_text_ends_with_usage_chunk(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.add_text("Hello there", chunk_size=3, usage={"prompt_tokens": 42})
    stream = sync_client(fake_llm).chat.completions.create(
        model="fake-model", messages=USER_HI, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    texts = [c.choices[0].delta.content for c in chunks if c.choices]
    assert "".join(t or "" for t in texts) == "Hello there"
    assert texts[1:5] == ["Hel", "lo ", "the", "re"]
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-2].choices[0].finish_reason == "stop"
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None and chunks[-1].usage.prompt_tokens == 42
    assert all(c.object == "chat.completion.chunk" and c.id == chunks[0].id for c in chunks)


async def test_async_stream_text_and_recorded_request(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.add_text("async answer", chunk_size=5)
    client = async_client(fake_llm)
    stream = await client.chat.completions.create(model="m1", messages=USER_HI, stream=True)
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert text == "async answer"
    (request,) = fake_llm.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body["model"] == "m1"
    assert fake_llm.last_messages() == USER_HI
    assert fake_llm.chat_requests() == [request]


def test_usage_chunk_follows_always_stream_usage_flag() -> None:
    with FakeOpenAIServer(always_stream_usage=False) as server:
        server.add_text("a").add_text("b")
        client = sync_client(server)
        plain = list(client.chat.completions.create(model="m", messages=USER_HI, stream=True))
        assert all(c.choices for c in plain)
        asked = list(
            client.chat.completions.create(
                model="m", messages=USER_HI, stream=True, stream_options={"include_usage": True}
            )
        )
        assert asked[-1].choices == [] and asked[-1].usage is not None


def test_non_streaming_text_and_reasoning(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.add_text("plain answer", reasoning="thinking hard")
    completion = sync_client(fake_llm).chat.completions.create(model="m", messages=USER_HI)
    assert completion.object == "chat.completion"
    message = completion.choices[0].message
    assert message.content == "plain answer"
    assert message.model_extra["reasoning_content"] == "thinking hard"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None and completion.usage.completion_tokens > 0


def test_stream_reasoning_comes_before_text(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.add_text("done", reasoning="step one", chunk_size=4)
    chunks = list(
        sync_client(fake_llm).chat.completions.create(model="m", messages=USER_HI, stream=True)
    )
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    reasoning = [d.model_extra.get("reasoning_content") for d in deltas]
    assert reasoning[1:3] == ["step", " one"]
    assert deltas[3].content == "done"


# -- tool calls ------------------------------------------------------------------------------


def test_stream_tool_calls_like_openai(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.add_tool_calls(
        [("ls", {"path": "src/deep"}), ("read", {"path": "a.md"}, "call_custom")],
        text="Looking.",
        chunk_size=5,
    )
    chunks = list(
        sync_client(fake_llm).chat.completions.create(model="m", messages=USER_HI, stream=True)
    )
    first_call_delta = next(c for c in chunks if c.choices and c.choices[0].delta.tool_calls)
    header = first_call_delta.choices[0].delta.tool_calls[0]
    assert (header.index, header.id, header.function.name) == (0, "call_fake_1", "ls")
    assert header.function.arguments == ""
    calls = collect_tool_calls(chunks)
    assert calls[0] == {"id": "call_fake_1", "name": "ls", "arguments": '{"path": "src/deep"}'}
    assert calls[1] == {"id": "call_custom", "name": "read", "arguments": '{"path": "a.md"}'}
    fragments = [
        c
        for c in chunks
        if c.choices and c.choices[0].delta.tool_calls and not c.choices[0].delta.tool_calls[0].id
    ]
    assert len(fragments) > 2
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Looking."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"


def test_non_streaming_tool_calls(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.add_tool_calls([("ls", '{"path": "."}')])
    completion = sync_client(fake_llm).chat.completions.create(model="m", messages=USER_HI)
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    (call,) = choice.message.tool_calls
    assert (call.id, call.function.name, call.function.arguments) == (
        "call_fake_1",
        "ls",
        '{"path": "."}',
    )


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code", "exception"),
    [
        (400, "context_length_exceeded", openai.BadRequestError),
        (401, "invalid_api_key", openai.AuthenticationError),
        (404, "model_not_found", openai.NotFoundError),
        (429, "rate_limit_exceeded", openai.RateLimitError),
        (500, None, openai.InternalServerError),
        (503, None, openai.InternalServerError),
    ],
)
def test_scripted_errors_map_to_openai_exceptions(
    fake_llm: FakeOpenAIServer, status: int, code: str | None, exception: type[Exception]
) -> None:
    fake_llm.add_error(status, f"scripted {status}", code=code).add_text("after the error")
    client = sync_client(fake_llm)
    with pytest.raises(exception) as caught:
        client.chat.completions.create(model="m", messages=USER_HI, stream=True)
    assert caught.value.status_code == status
    assert caught.value.code == code
    assert caught.value.body["message"] == f"scripted {status}"
    answer = client.chat.completions.create(model="m", messages=USER_HI)
    assert answer.choices[0].message.content == "after the error"


def test_wrong_api_key_gets_401_and_unknown_model_404() -> None:
    with FakeOpenAIServer(require_api_key="sk-right", models=["good"]) as server:
        wrong = openai.OpenAI(base_url=server.base_url, api_key="sk-wrong-key", max_retries=0)
        with pytest.raises(openai.AuthenticationError) as auth:
            wrong.chat.completions.create(model="good", messages=USER_HI)
        assert auth.value.code == "invalid_api_key"
        right = openai.OpenAI(base_url=server.base_url, api_key="sk-right", max_retries=0)
        with pytest.raises(openai.NotFoundError) as missing:
            right.chat.completions.create(model="nope", messages=USER_HI)
        assert missing.value.code == "model_not_found"
        assert [m.id for m in right.models.list()] == ["good"]
        assert server.pending_turns == 0


def test_empty_queue_answers_500_with_clear_message(fake_llm: FakeOpenAIServer) -> None:
    with pytest.raises(openai.InternalServerError, match=NO_TURN_LEFT):
        sync_client(fake_llm).chat.completions.create(model="m", messages=USER_HI)
    fake_llm.set_fallback("always this")
    reply = sync_client(fake_llm).chat.completions.create(model="m", messages=USER_HI)
    assert reply.choices[0].message.content == "always this"


@pytest.mark.parametrize("stream", [True, False])
def test_cut_stream_raises_in_client(fake_llm: FakeOpenAIServer, stream: bool) -> None:
    fake_llm.add_cut_stream("partial answer", chunk_size=4)
    client = sync_client(fake_llm)
    received: list[str] = []
    with pytest.raises(openai.APIConnectionError):
        result = client.chat.completions.create(model="m", messages=USER_HI, stream=stream)
        for chunk in result:
            received.extend(c.delta.content or "" for c in chunk.choices)
    if stream:
        assert "".join(received) == "partial answer"


def test_mid_stream_error_event_raises_api_error(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.add_cut_stream("so far", error_message="upstream overloaded")
    stream = sync_client(fake_llm).chat.completions.create(model="m", messages=USER_HI, stream=True)
    with pytest.raises(openai.APIError, match="upstream overloaded"):
        list(stream)


async def test_delay_triggers_client_timeout(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.add_text("too late", delay=30.0)
    client = async_client(fake_llm, timeout=0.3)
    with pytest.raises(openai.APITimeoutError):
        await client.chat.completions.create(model="m", messages=USER_HI, stream=True)


# -- handlers --------------------------------------------------------------------------------


def test_handler_answers_from_the_request(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.add_handler(lambda body: f"echo: {body['messages'][-1]['content']}")
    fake_llm.add_handler(lambda body: 1 / 0)
    client = sync_client(fake_llm)
    reply = client.chat.completions.create(model="m", messages=USER_HI)
    assert reply.choices[0].message.content == "echo: hi"
    with pytest.raises(openai.InternalServerError, match="ZeroDivisionError"):
        client.chat.completions.create(model="m", messages=USER_HI)


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
