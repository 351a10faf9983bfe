"""An in-process `ChatModel` for unit tests: scripted answers, every prompt recorded.

    model = MockModel('{"units": []}', "## Goal\\n…")
    await compactor.compact(...)          # anything that takes a ChatModel
    model.prompts[0][-1].content          # what the code asked

An answer is a string, a function of the messages returning one, or an exception to raise.
Answers are streamed in a few pieces, so callers must join them. Tests of the agent loop (tool
calls over HTTP) use the fake server in `tests/fakes/fake_openai.py` instead.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from remecli.llm.chat_model import ChatMessage, JSONSchema, JSONValue
from remecli.llm.json_answer import require_json
from remecli.llm.model_text import answer_text

Answer = str | Callable[[list[ChatMessage]], str] | BaseException


class MockModel:
    """A `remecli.llm.chat_model.ChatModel` that answers from a script."""

    def __init__(self, *answers: Answer, model_name: str = "mock-model", pieces: int = 3) -> None:
        self.answers: list[Answer] = list(answers)
        self.prompts: list[list[ChatMessage]] = []
        self.pieces = pieces
        self.closed = False
        self._name = model_name

    @property
    def model_name(self) -> str:
        """The name it reports."""
        return self._name

    def add(self, *answers: Answer) -> MockModel:
        """Queue more answers (returns the model, for chaining)."""
        self.answers.extend(answers)
        return self

    async def stream_text(self, messages: Sequence[ChatMessage]) -> AsyncIterator[str]:
        """The next scripted answer, in `pieces` pieces; records the messages."""
        asked = list(messages)
        self.prompts.append(asked)
        if not self.answers:
            raise AssertionError(f"MockModel has no answer left for prompt #{len(self.prompts)}")
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        text = answer if isinstance(answer, str) else answer(asked)
        size = max(1, -(-len(text) // self.pieces))
        for start in range(0, len(text), size):
            yield text[start : start + size]

    async def complete_json(
        self, messages: Sequence[ChatMessage], schema: JSONSchema | None = None
    ) -> JSONValue:
        """The next answer read as JSON, exactly as the real adapter reads it."""
        return require_json(await answer_text(self, messages), schema)

    def agent_model(self) -> Any:
        """Not available: the agent loop needs a provider object (use the HTTP fake)."""
        raise RuntimeError(
            "MockModel drives no agent loop; tests with tool calls use "
            "tests/fakes/fake_openai.py (FakeOpenAIServer) and build_chat_model"
        )

    async def aclose(self) -> None:
        """Note that it was closed."""
        self.closed = True
