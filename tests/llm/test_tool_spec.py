"""ToolSpec.from_function: a tool's name, description and JSON schema come from the typed
signature and the docstring (as simonw/llm's `Tool.function`), the same as the runtime's own
reading of the tools remecli has; a bound argument (partial, self) is not offered to the model."""

from __future__ import annotations

from functools import partial
from typing import Literal

import pytest

from remecli.llm.tool_spec import ToolSpec, parse_docstring


def lookup(ctx: object, topic: str, limit: int = 3, mode: Literal["fast", "deep"] = "fast") -> str:
    """Look a topic up in the notes.

    Longer explanation, on
    two lines.

    Args:
        ctx: What the tool works on (bound, never offered).
        topic: What to look up,
            e.g. "tea".
        limit (`int`): How many hits.
        mode: How hard to look.

    Returns:
        The hits.
    """
    return f"{topic}:{limit}:{mode}"


def test_the_schema_comes_from_the_annotations_and_the_args_section() -> None:
    spec = ToolSpec.from_function(partial(lookup, object()), read_only=True)
    assert spec.name == "lookup" and spec.read_only and spec.allowed is None
    assert spec.description == ("Look a topic up in the notes.\nLonger explanation, on\ntwo lines.")
    assert spec.parameters == {
        "type": "object",
        "properties": {
            "topic": {"type": "string", "description": 'What to look up,\ne.g. "tea".'},
            "limit": {"type": "integer", "default": 3, "description": "How many hits."},
            "mode": {
                "type": "string",
                "enum": ["fast", "deep"],
                "default": "fast",
                "description": "How hard to look.",
            },
        },
        "required": ["topic"],
    }
    assert spec.function(topic="tea") == "tea:3:fast"


def test_a_given_name_and_description_win() -> None:
    spec = ToolSpec.from_function(lookup, name="find", description="Find it.", allowed="safe")
    assert (spec.name, spec.description, spec.allowed) == ("find", "Find it.", "safe")
    assert "ctx" in spec.parameters["properties"]  # not bound: offered


def test_an_undocumented_function_still_has_a_schema() -> None:
    def bare(x: float, flag: bool | None = None) -> None:
        pass

    spec = ToolSpec.from_function(bare)
    assert spec.description == "" and spec.parameters["required"] == ["x"]
    assert spec.parameters["properties"]["x"] == {"type": "number"}


def test_parse_docstring_stops_the_args_at_the_next_section() -> None:
    summary, params = parse_docstring(lookup.__doc__ or "")
    assert summary.startswith("Look a topic up") and "Returns" not in summary
    assert list(params) == ["ctx", "topic", "limit", "mode"]


def _remecli_tool_functions() -> list[tuple[str, object]]:
    from remecli.knowledge.dream.agent_tools import DigestSearch
    from remecli.knowledge.summary.tools import MemoryFileTools
    from remecli.tools.registry import TOOLS

    found: list[tuple[str, object]] = [(spec.name, spec.function) for spec in TOOLS]
    found += [(f.__name__, f) for f in (MemoryFileTools.read, MemoryFileTools.write)]
    found += [
        ("edit (memory)", MemoryFileTools.edit),
        ("search_digest", DigestSearch.search_digest),
    ]
    return found


@pytest.mark.parametrize(("name", "function"), _remecli_tool_functions())
def test_remecli_tools_are_described_as_the_runtime_describes_them(
    name: str, function: object
) -> None:
    from agentscope.tool import FunctionTool

    bound = partial(function, object())  # type: ignore[call-overload]  # ctx / self
    runtime = FunctionTool(bound)
    spec = ToolSpec.from_function(bound)
    assert spec.parameters == runtime.input_schema, name
    assert spec.description == runtime.description, name
