"""The tool registry: builds the agent's tools from a ToolContext, and lists them for /help."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from functools import partial
from typing import Any

from agentscope.message import ToolResultState
from agentscope.tool import FunctionTool, ToolChunk, Toolkit, ToolResponse

from remecli.tools._results import error
from remecli.tools.bash import bash
from remecli.tools.context import ToolContext
from remecli.tools.edit import edit
from remecli.tools.execute_code import execute_code
from remecli.tools.ls import ls
from remecli.tools.read import read
from remecli.tools.web_search import ENABLE_HINT, web_search
from remecli.tools.write import write

TOOL_NAMES: tuple[str, ...] = ("bash", "ls", "read", "edit", "write", "execute_code", "web_search")
READ_ONLY_TOOLS = frozenset({"ls", "read", "web_search", "memory_search"})
WEB_SEARCH_HINT = ENABLE_HINT

ONE_LINERS: dict[str, str] = {
    "bash": "run a shell command in the workspace (timeout, output tail-truncated)",
    "ls": "list a folder, sorted, folders marked with /",
    "read": "read a text file page by page; images shown or described",
    "edit": "replace one unique piece of a file; returns a diff",
    "write": "create or overwrite a whole file",
    "execute_code": "run a Python program in a separate process",
    "web_search": "search the web (Tavily)",
    "memory_search": "search long-term memory (MEMORY.md, memory/*.md)",
}

_FUNCTIONS: dict[str, Callable[..., object]] = {
    "bash": bash,
    "ls": ls,
    "read": read,
    "edit": edit,
    "write": write,
    "execute_code": execute_code,
    "web_search": web_search,
}


class CheckedFunctionTool(FunctionTool):
    """A FunctionTool that refuses unknown arguments with a message naming the accepted ones,
    and accepts a returned `ToolResponse` as well as a `ToolChunk`.

    (agentscope 2.0.11's FunctionTool stringifies a returned ToolResponse into a text block.)
    """

    async def call(self, **kwargs: Any) -> ToolChunk | AsyncGenerator[ToolChunk, None]:
        """Check argument names against the schema, then run the function."""
        accepted = list((self.input_schema or {}).get("properties", {}))
        unknown = sorted(set(kwargs) - set(accepted))
        if unknown:
            names = ", ".join(f"`{name}`" for name in unknown)
            return error(
                f"Unknown argument(s) {names} for {self.name}; it accepts: "
                f"{', '.join(accepted) or 'no arguments'}."
            )
        return await super().call(**kwargs)

    @staticmethod
    def _convert_func_result_to_chunk(result: Any) -> ToolChunk:
        if isinstance(result, ToolResponse):
            state = ToolResultState.RUNNING
            if result.state != ToolResultState.SUCCESS:
                state = result.state
            return ToolChunk(content=result.content, state=state, metadata=result.metadata)
        return FunctionTool._convert_func_result_to_chunk(result)


def build_tools(ctx: ToolContext, extra: Sequence[FunctionTool] = ()) -> list[FunctionTool]:
    """The agent's tools bound to `ctx`, then `extra` (e.g. memory_search).

    `web_search` is included only when a Tavily key is set. `ls`, `read` and `web_search` are
    read-only; the other tools keep agentscope's default permission (ASK), which the
    ApprovalMiddleware decides — an agent built without it stops at their first call.
    """
    names = [name for name in TOOL_NAMES if name != "web_search" or ctx.settings.tavily_api_key]
    tools = [_function_tool(ctx, name) for name in names]
    taken = set(names)
    for tool in extra:
        if tool.name in taken:
            raise ValueError(f"Two tools are named {tool.name!r}.")
        taken.add(tool.name)
        tools.append(tool)
    return tools


def build_toolkit(tools: Sequence[FunctionTool]) -> Toolkit:
    """An agentscope Toolkit holding `tools` in its basic group."""
    return Toolkit(tools=list(tools))


def describe_tools(tools: Sequence[FunctionTool]) -> list[tuple[str, str]]:
    """(name, one-line description) per tool, for the system prompt and /help."""
    described = []
    for tool in tools:
        line = ONE_LINERS.get(tool.name) or (tool.description or "").strip().split("\n")[0]
        described.append((tool.name, line))
    return described


def _function_tool(ctx: ToolContext, name: str) -> FunctionTool:
    func = partial(_FUNCTIONS[name], ctx)
    description = None
    if name == "bash":
        description = _with_limits(bash.__doc__ or "", ctx)
    return CheckedFunctionTool(
        func,
        name=name,
        description=description,
        is_read_only=name in READ_ONLY_TOOLS,
        is_concurrency_safe=name in READ_ONLY_TOOLS,
    )


def _with_limits(docstring: str, ctx: ToolContext) -> str:
    """bash's description with the configured timeouts spelled out."""
    summary = docstring.split("\n    Args:")[0]
    text = " ".join(line.strip() for line in summary.strip().splitlines() if line.strip())
    settings = ctx.settings
    return (
        f"{text} Default timeout {settings.bash_timeout:g} s; pass `timeout` for up to "
        f"{settings.bash_max_timeout:g} s."
    )
