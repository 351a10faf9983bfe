"""The registry: which tools, their flags, schemas and one-line descriptions."""

from __future__ import annotations

import pytest

from remecli.llm.agentscope_adapter import runtime_tool
from remecli.llm.message import ToolOutput
from remecli.llm.tool_spec import ToolSpec
from remecli.tools.registry import TOOL_NAMES, build_tools, describe_tools
from tests.tools.conftest import make_ctx


def test_tools_flags_and_schemas(workspace) -> None:
    tools = build_tools(make_ctx(workspace, tavily_api_key="k"))
    assert [tool.name for tool in tools] == list(TOOL_NAMES)
    read_only = {tool.name for tool in tools if tool.read_only}
    assert read_only == {"ls", "read", "web_search"}
    for tool in tools:
        assert "ctx" not in tool.parameters["properties"]
        assert tool.description
        for prop in tool.parameters["properties"].values():
            assert prop.get("description"), (tool.name, prop)
    bash = next(tool for tool in tools if tool.name == "bash")
    assert "Default timeout 5 s" in bash.description and "10 s" in bash.description


async def test_the_runtime_lists_their_schemas(workspace) -> None:
    from agentscope.tool import Toolkit

    tools = build_tools(make_ctx(workspace))
    toolkit = Toolkit(tools=[runtime_tool(tool) for tool in tools])
    schemas = await toolkit.get_tool_schemas()
    names = {schema["function"]["name"] for schema in schemas}
    assert {"bash", "ls", "read", "edit", "write", "execute_code"} <= names
    assert "web_search" not in names
    described = {schema["function"]["name"]: schema["function"] for schema in schemas}
    for tool in tools:  # what the model is told is what the registry says
        assert described[tool.name]["description"] == tool.description
        assert described[tool.name]["parameters"] == tool.parameters
    runtime = {tool.name: runtime_tool(tool) for tool in tools}
    flags = {name: (tool.is_read_only, tool.is_concurrency_safe) for name, tool in runtime.items()}
    assert flags["read"] == (True, True) and flags["bash"] == (False, False)


def test_extra_tools_and_descriptions(workspace) -> None:
    async def memory_search(query: str) -> ToolOutput:
        """Search long-term memory.

        Args:
            query: What to look for.
        """
        return ToolOutput(query)

    extra = ToolSpec.from_function(memory_search, read_only=True)
    tools = build_tools(make_ctx(workspace), extra=[extra])
    described = dict(describe_tools(tools))
    assert described["memory_search"].startswith("search long-term memory")
    assert described["bash"].startswith("run a shell command")
    with pytest.raises(ValueError, match="Two tools"):
        build_tools(make_ctx(workspace), extra=[extra, extra])
