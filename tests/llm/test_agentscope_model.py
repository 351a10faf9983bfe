"""The agentscope adapter over HTTP (the fake server): text, JSON, cancellation, the wire."""

from __future__ import annotations

import asyncio

import pytest

from remecli.config.settings import LLMSettings
from remecli.llm.chat_model import JSONAnswerError, system, user
from remecli.llm.model import build_chat_model
from remecli.llm.model_text import answer_text

ANSWER = "The checkpoint, in several streamed pieces: " + "word " * 40


def _settings(fake_llm, **overrides) -> LLMSettings:
    return LLMSettings(base_url=fake_llm.base_url, api_key="k", model_name="m", **overrides)


@pytest.mark.parametrize("stream", [True, False])
async def test_text_is_the_whole_answer_streamed_or_not(fake_llm, stream: bool) -> None:
    fake_llm.add_text(ANSWER, chunk_size=7)
    model = build_chat_model(_settings(fake_llm, temperature=0.2), stream=stream)
    pieces = [p async for p in model.stream_text([system("be brief"), user("hi")])]
    assert "".join(pieces) == ANSWER and (len(pieces) > 1) == stream
    body = fake_llm.chat_requests()[0].body
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    assert (body["model"], body["stream"], body["temperature"]) == ("m", stream, 0.2)
    assert model.model_name == "m" and model.agent_model().stream == stream
    await model.aclose()


async def test_json_is_read_from_a_fenced_answer(fake_llm) -> None:
    fake_llm.add_text('Here:\n```json\n{"name": "atlas", "tags": ["a"],}\n```')
    fake_llm.add_text("No JSON, sorry.")
    model = build_chat_model(_settings(fake_llm), stream=False)
    assert await model.complete_json([user("card?")]) == {"name": "atlas", "tags": ["a"]}
    with pytest.raises(JSONAnswerError) as failure:
        await model.complete_json([user("card?")], {"type": "object"})
    assert failure.value.answer == "No JSON, sorry."
    await model.aclose()


async def test_a_cancelled_call_raises_cancelled(fake_llm) -> None:
    fake_llm.add_text("late", delay=30.0)
    model = build_chat_model(_settings(fake_llm))
    task = asyncio.create_task(answer_text(model, [user("hi")]))
    await fake_llm.wait_for_requests_async(1, path="/v1/chat/completions")
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=10)
    assert task in done and task.cancelled()
    await model.aclose()
