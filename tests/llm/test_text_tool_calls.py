"""Tool calls written as text (the forms small local models emit) are read; shown JSON is not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from remecli.llm.text_tool_calls import find_text_tool_calls, offered_tool_names

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "text_tool_calls.json").read_text())
OFFERED: list[str] = FIXTURES["offered"]


@pytest.mark.parametrize("case", FIXTURES["calls"], ids=lambda c: c["id"])
def test_a_text_form_call_is_read(case: dict[str, Any]) -> None:
    found = find_text_tool_calls(case["text"], OFFERED)
    assert found is not None, case["form"]
    assert [{"name": c.name, "arguments": c.arguments} for c in found.calls] == case["calls"]
    assert found.prose == case["prose"]


@pytest.mark.parametrize("case", FIXTURES["not_calls"], ids=lambda c: c["id"])
def test_text_that_only_shows_json_is_no_call(case: dict[str, Any]) -> None:
    assert find_text_tool_calls(case["text"], OFFERED) is None, case["why"]


def test_nothing_is_a_call_when_no_tool_is_offered() -> None:
    text = FIXTURES["calls"][0]["text"]
    assert find_text_tool_calls(text, OFFERED) is not None
    assert find_text_tool_calls(text, []) is None


def test_offered_names_come_from_the_tools_schema() -> None:
    tools = [
        {"type": "function", "function": {"name": "read_file", "parameters": {}}},
        {"name": "memory_search", "parameters": {}},
    ]
    assert offered_tool_names(tools) == {"read_file", "memory_search"}
    assert offered_tool_names(None) == set()
