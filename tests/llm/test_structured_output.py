"""`complete_json` asks with `response_format` where the server takes it, and falls back."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from remecli.config.settings import LLMSettings
from remecli.llm.chat_model import system, user
from remecli.llm.model import build_chat_model
from tests.fakes import FakeOpenAIServer


class Card(BaseModel):
    title: str
    lines: list[int]


def _settings(server: FakeOpenAIServer) -> LLMSettings:
    return LLMSettings(base_url=server.base_url, api_key="sk-test", model_name="local-1.5b")


@pytest.mark.parametrize("stream", [True, False])
async def test_a_server_that_has_it_is_asked_with_the_schema(stream: bool) -> None:
    with FakeOpenAIServer() as server:
        server.add_text('{"title": "Staging", "lines": [3, 4]}')
        server.add_text('{"decision": "add"}')
        model = build_chat_model(_settings(server), stream=stream)
        card = await model.complete_json([system("Write a card."), user("...")], Card)
        assert card == {"title": "Staging", "lines": [3, 4]}
        assert await model.complete_json([user("Decide, in JSON.")]) == {"decision": "add"}
        first, second = (r.body for r in server.chat_requests())
        assert first["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": "Card", "schema": Card.model_json_schema()},
        }
        assert second["response_format"] == {"type": "json_object"}
        await model.aclose()


async def test_a_refusing_server_gets_plain_prompting_and_is_remembered() -> None:
    with FakeOpenAIServer(refuse_response_format=True) as server:
        # fenced and with a trailing comma, as small models answer when asked in words
        server.add_text('```json\n{"title": "Billing", "lines": [1],}\n```')
        server.add_text('{"title": "Miso", "lines": [2]}')
        model = build_chat_model(_settings(server), stream=False)
        assert await model.complete_json([user("card?")], Card) == {
            "title": "Billing",
            "lines": [1],
        }
        requests = [r.body for r in server.chat_requests()]
        assert ["response_format" in body for body in requests] == [True, False]
        # a second model on the same endpoint does not ask with it again
        again = build_chat_model(_settings(server), stream=True)
        assert await again.complete_json([user("card?")], Card) == {"title": "Miso", "lines": [2]}
        assert "response_format" not in server.chat_requests()[-1].body
        assert len(server.chat_requests()) == 3
        await model.aclose()
        await again.aclose()


async def test_other_bad_requests_are_not_taken_for_a_refusal(fake_llm: FakeOpenAIServer) -> None:
    import openai

    fake_llm.add_error(400, "maximum context length exceeded", code="context_length_exceeded")
    model = build_chat_model(_settings(fake_llm), stream=False)
    with pytest.raises(openai.BadRequestError):
        await model.complete_json([user("card?")], Card)
    assert len(fake_llm.chat_requests()) == 1
    await model.aclose()
