"""The tool registry: builds the agent's tools from a ToolContext, and lists them for /help."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from remecli.llm.tool_spec import ToolSpec
from remecli.ops.context import JobContext
from remecli.ops.host import MemoryHost
from remecli.tools.bash import bash
from remecli.tools.context import ToolContext
from remecli.tools.edit import edit
from remecli.tools.execute_code import execute_code
from remecli.tools.ls import ls
from remecli.tools.memory_links import DESCRIPTION as MEMORY_LINKS_DESCRIPTION
from remecli.tools.memory_links import INPUT_SCHEMA as MEMORY_LINKS_SCHEMA
from remecli.tools.memory_links import links_offered, memory_links
from remecli.tools.memory_search import DESCRIPTION as MEMORY_SEARCH_DESCRIPTION
from remecli.tools.memory_search import memory_search, memory_search_schema
from remecli.tools.read import read
from remecli.tools.retrieve_memory import DESCRIPTION as RETRIEVE_MEMORY_DESCRIPTION
from remecli.tools.retrieve_memory import enabled as retrieve_memory_enabled
from remecli.tools.retrieve_memory import retrieve_memory
from remecli.tools.web_search import web_search
from remecli.tools.write import write

if TYPE_CHECKING:  # the search package loads with the index, not with the tools
    from remecli.search.index import MemoryIndex


@dataclass(frozen=True)
class RegisteredTool:
    """One tool, described once: its function (first argument: the `ToolContext`, or for memory
    tools the operations' `JobContext` on the memory runtime), whether it only reads, its
    one-line description, and when it is offered (`memory_enabled` gets the runtime)."""

    name: str
    function: Callable[..., Any]
    one_liner: str
    read_only: bool = False
    needs_memory: bool = False
    enabled: Callable[[ToolContext], bool] = lambda ctx: True
    memory_enabled: Callable[[Any], bool] = lambda memory: bool(memory.search_enabled)
    schema: Callable[[Any], dict[str, Any]] | None = None
    description: str | None = None


TOOLS: tuple[RegisteredTool, ...] = (
    RegisteredTool(
        "bash", bash, "run a shell command in the workspace (timeout, output tail-truncated)"
    ),
    RegisteredTool("ls", ls, "list a folder, sorted, folders marked with /", read_only=True),
    RegisteredTool(
        "read", read, "read a text file page by page; images shown or described", read_only=True
    ),
    RegisteredTool("edit", edit, "replace one unique piece of a file; returns a diff"),
    RegisteredTool("write", write, "create or overwrite a whole file"),
    RegisteredTool("execute_code", execute_code, "run a Python program in a separate process"),
    RegisteredTool(
        "web_search",
        web_search,
        "search the web (Tavily)",
        read_only=True,
        enabled=lambda ctx: bool(ctx.settings.tavily_api_key),
    ),
    RegisteredTool(
        "memory_search",
        memory_search,
        "search long-term memory (MEMORY.md, memory/*.md)",
        read_only=True,
        needs_memory=True,
        schema=memory_search_schema,
        description=MEMORY_SEARCH_DESCRIPTION,
    ),
    RegisteredTool(
        "memory_links",
        memory_links,
        "what a memory note links to and what links to it (names, descriptions)",
        read_only=True,
        needs_memory=True,
        memory_enabled=links_offered,
        schema=lambda _memory: dict(MEMORY_LINKS_SCHEMA),
        description=MEMORY_LINKS_DESCRIPTION,
    ),
    RegisteredTool(
        "retrieve_memory",
        retrieve_memory,
        "retrieve personal, task and tool memories (vector memory)",
        read_only=True,
        needs_memory=True,
        memory_enabled=retrieve_memory_enabled,
        description=RETRIEVE_MEMORY_DESCRIPTION,
    ),
)
SPECS: dict[str, RegisteredTool] = {spec.name: spec for spec in TOOLS}
TOOL_NAMES: tuple[str, ...] = tuple(spec.name for spec in TOOLS if not spec.needs_memory)


def build_tools(
    ctx: ToolContext, extra: Sequence[ToolSpec] = (), *, memory: MemoryHost | None = None
) -> list[ToolSpec]:
    """The agent's tools bound to `ctx` (and to the memory runtime `memory`, when given), then
    `extra`.

    A tool is offered when it is enabled (`web_search` needs a Tavily key; memory tools need the
    runtime and its search). Read-only tools are allowed outright; the others keep the runtime's
    default permission (ASK), which the ApprovalMiddleware decides — an agent built without it
    stops at their first call.
    """
    tools: list[ToolSpec] = []
    ops = JobContext(memory) if memory is not None else None  # what the memory tools act on
    for spec in TOOLS:
        if spec.needs_memory:
            if memory is None or not spec.memory_enabled(memory):
                continue
        elif not spec.enabled(ctx):
            continue
        tools.append(_tool_spec(spec, ops if spec.needs_memory else ctx, _description(spec, ctx)))
    taken = {tool.name for tool in tools}
    for tool in extra:
        if tool.name in taken:
            raise ValueError(f"Two tools are named {tool.name!r}.")
        taken.add(tool.name)
        tools.append(tool)
    return tools


def describe_tools(tools: Sequence[ToolSpec]) -> list[tuple[str, str]]:
    """(name, one-line description) per tool, for the system prompt and /help."""
    described = []
    for tool in tools:
        spec = SPECS.get(tool.name)
        line = spec.one_liner if spec else (tool.description or "").strip().split("\n")[0]
        described.append((tool.name, line))
    return described


def _description(spec: RegisteredTool, ctx: ToolContext) -> str | None:
    """What the model is told about the tool (None: its docstring's summary)."""
    return _with_limits(bash.__doc__ or "", ctx) if spec.name == "bash" else spec.description


def _tool_spec(spec: RegisteredTool, bound: Any, description: str | None) -> ToolSpec:
    """The tool `spec` bound to `bound`; only read-only tools run concurrently."""
    tool = ToolSpec.from_function(
        partial(spec.function, bound),
        name=spec.name,
        description=description,
        read_only=spec.read_only,
        concurrency_safe=spec.read_only,
    )
    return replace(tool, parameters=spec.schema(bound)) if spec.schema else tool


def _with_limits(docstring: str, ctx: ToolContext) -> str:
    """bash's description with the configured timeouts spelled out."""
    summary = docstring.split("\n    Args:")[0]
    text = " ".join(line.strip() for line in summary.strip().splitlines() if line.strip())
    settings = ctx.settings
    return (
        f"{text} Default timeout {settings.bash_timeout:g} s; pass `timeout` for up to "
        f"{settings.bash_max_timeout:g} s."
    )


def memory_search_tool(index: MemoryIndex) -> ToolSpec:
    """The registry's `memory_search` bound to a bare `MemoryIndex` (benchmarks, library use)."""
    from remecli.tools.memory_search import IndexSearcher

    ops = JobContext.stand_in(IndexSearcher(index))
    spec = SPECS["memory_search"]
    return _tool_spec(spec, ops, spec.description)
