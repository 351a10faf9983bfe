"""The one reader of JSON in model answers, and the text seam of vector memory."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from remecli.config.settings import LLMSettings
from remecli.llm.chat_model import JSONAnswerError
from remecli.llm.errors import EmptyAnswerError
from remecli.llm.json_answer import json_from_answer, json_object, require_json
from remecli.vector.chat import ChatClient, MemoryModelError
from tests.fakes.mock_model import MockModel


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ("Here:\n```\n[1, 2]\n```\nDone.", [1, 2]),
        ('Sure! {"a": 1, "b": [1, 2]} hope it helps', {"a": 1, "b": [1, 2]}),
        ('{"a": 1,}', {"a": 1}),
        ('{"a": 1} — see [[link]] for more', {"a": 1}),
        ('Wrote:\n```markdown\n# Node\n```\nReceipt: {"action": "CREATE"}', {"action": "CREATE"}),
        ("I cannot do that.", None),
        ("<nothing to store>", None),
        ("", None),
        ("{broken", None),
    ],
)
def test_json_from_answer(answer: str, expected: object) -> None:
    assert json_from_answer(answer) == expected


def test_a_wanted_shape_is_looked_for_and_kept() -> None:
    assert json_object('see [E1]: {"action": "CREATE"}') == {"action": "CREATE"}
    assert json_object("[1, 2]") is None
    assert json_from_answer('[{"c": 1}] and {"x": 2}', "array") == [{"c": 1}]


class Card(BaseModel):
    name: str = Field(min_length=1)
    tags: list[str] = Field(default_factory=list)


def test_require_json_names_the_problem_and_keeps_the_answer() -> None:
    assert require_json('{"name": "n"}', Card) == {"name": "n"}
    assert require_json("[1]", {"type": "array"}) == [1]
    with pytest.raises(JSONAnswerError) as missing:
        require_json("No JSON here.", Card)
    assert (missing.value.problem, missing.value.answer) == (
        "it is not a JSON object",
        "No JSON here.",
    )
    with pytest.raises(JSONAnswerError, match=r"`name`: String should have at least 1 character"):
        require_json('{"name": ""}', Card)
    with pytest.raises(JSONAnswerError, match="it is not a JSON array"):
        require_json('{"a": 1}', {"type": "array"})


async def test_mock_model_complete_json_reads_like_the_adapter() -> None:
    model = MockModel('```json\n{"name": "n", "tags": ["a"]}\n```', "nothing")
    assert await model.complete_json([], Card) == {"name": "n", "tags": ["a"]}
    with pytest.raises(JSONAnswerError):
        await model.complete_json([])


async def test_vector_memory_asks_through_the_seam() -> None:
    settings = LLMSettings(model_name="m", max_retries=0)
    model = MockModel("an answer", EmptyAnswerError("no choices"), ConnectionRefusedError("no"))
    chat = ChatClient(settings, model=model)
    assert await chat.complete("be brief", "hello", what="memory summary") == "an answer"
    assert [(m.role, m.content) for m in model.prompts[0]] == [
        ("system", "be brief"),
        ("user", "hello"),
    ]
    assert await chat.complete("s", "u") == ""  # an empty answer stores nothing
    with pytest.raises(MemoryModelError, match="Unexpected error talking to"):
        await chat.complete("s", "u")
    await chat.close()
    assert model.closed
