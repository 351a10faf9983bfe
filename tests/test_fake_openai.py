"""Self-tests of the fake OpenAI server, driven by the real ``openai`` client and agentscope."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tests.fakes import NO_TURN_LEFT, FakeOpenAIServer
from tests.fakes.clients import USER_HI, async_client, sync_client


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
