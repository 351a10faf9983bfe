"""What the user reads when the server fails: each part of the message says something."""

from __future__ import annotations

import httpx
import openai

from remecli.config.settings import LLMSettings
from remecli.llm.errors import classify


def _server_error(body: object) -> openai.InternalServerError:
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    response = httpx.Response(500, request=request)
    message = "Error code: 500" + (f" - {body}" if body else "")
    return openai.InternalServerError(message, response=response, body=body)


def test_a_500_without_a_reason_does_not_repeat_its_status() -> None:
    settings = LLMSettings(base_url="http://127.0.0.1:9/v1", api_key="x", model_name="m")
    error = classify(_server_error(None), settings)
    assert error.message == (
        "The server at http://127.0.0.1:9/v1 failed (500): its answer gave no reason. Try again."
    )
    said = classify(_server_error({"error": {"message": "model overloaded"}}), settings)
    assert "failed (500): model overloaded. Try again." in said.message
    text = classify(_server_error("upstream timed out"), settings)
    assert "failed (500): upstream timed out. Try again." in text.message
