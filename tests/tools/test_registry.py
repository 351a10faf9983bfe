"""The registry: which tools, their flags, schemas and one-line descriptions."""

from __future__ import annotations

import pytest
from agentscope.message import TextBlock, ToolResultState
from agentscope.tool import ToolResponse

from remecli.tools.registry import (
    TOOL_NAMES,
    CheckedFunctionTool,
    build_toolkit,
    build_tools,
    describe_tools,
)
from tests.tools.conftest import make_ctx, text_of


def test_tools_flags_and_schemas(workspace) -> None:
    tools = build_tools(make_ctx(workspace, tavily_api_key="k"))
    assert [tool.name for tool in tools] == list(TOOL_NAMES)
    read_only = {tool.name for tool in tools if tool.is_read_only}
    assert read_only == {"ls", "read", "web_search"}
    for tool in tools:
        assert "ctx" not in tool.input_schema["properties"]
        assert tool.description
        for prop in tool.input_schema["properties"].values():
            assert prop.get("description"), (tool.name, prop)
    bash = next(tool for tool in tools if tool.name == "bash")
    assert "Default timeout 5 s" in bash.description and "10 s" in bash.description


async def test_toolkit_lists_schemas(workspace) -> None:
    toolkit = build_toolkit(build_tools(make_ctx(workspace)))
    schemas = await toolkit.get_tool_schemas()
    names = {schema["function"]["name"] for schema in schemas}
    assert {"bash", "ls", "read", "edit", "write", "execute_code"} <= names
    assert "web_search" not in names


def test_extra_tools_and_descriptions(workspace) -> None:
    async def memory_search(query: str) -> ToolResponse:
        """Search long-term memory.

        Args:
            query: What to look for.
        """
        return ToolResponse(content=[TextBlock(text=query)])

    extra = CheckedFunctionTool(memory_search, is_read_only=True)
    tools = build_tools(make_ctx(workspace), extra=[extra])
    described = dict(describe_tools(tools))
    assert described["memory_search"].startswith("search long-term memory")
    assert described["bash"].startswith("run a shell command")
    with pytest.raises(ValueError, match="Two tools"):
        build_tools(make_ctx(workspace), extra=[extra, extra])


async def test_checked_tool_accepts_a_returned_tool_response() -> None:
    async def failing(x: int) -> ToolResponse:
        """Fail.

        Args:
            x: A number.
        """
        return ToolResponse(content=[TextBlock(text=f"bad {x}")], state=ToolResultState.ERROR)

    chunk = await CheckedFunctionTool(failing)(x=3)
    assert text_of(chunk) == "bad 3" and chunk.state == ToolResultState.ERROR
    chunk = await CheckedFunctionTool(failing)(x=3, y=4)
    assert "Unknown argument(s) `y`" in text_of(chunk)
