"""`remecli mcp`: the memory jobs as MCP tools (official `mcp` SDK, `MCPServer`).

Tool names, descriptions and input schemas come from the job registry; a job's `JobError`
becomes a tool error (`is_error`) whose text says what to do.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from remecli import __version__
from remecli.ops import Job, JobError, JobRunner

INSTRUCTIONS = (
    "Long-term memory kept as Markdown files (MEMORY.md, memory/YYYY-MM-DD.md). Search it with "
    "memory_search, read hits with memory_read, feed a finished conversation to memory_record."
)


def _signature(job: Job) -> inspect.Signature:
    """A keyword-only signature mirroring the job's parameter model (the SDK reads it)."""
    parameters = []
    for name, info in job.params.model_fields.items():
        annotation: Any = Annotated[
            (info.annotation, *info.metadata, Field(description=info.description))
        ]
        # a default_factory (e.g. tags: list) is a default too: the field is optional, as in HTTP
        default = (
            inspect.Parameter.empty
            if info.is_required()
            else info.get_default(call_default_factory=True)
        )
        parameters.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
            )
        )
    return inspect.Signature(parameters, return_annotation=job.result)  # → outputSchema


def _tool_function(runner: JobRunner, job: Job) -> Any:
    async def call(**arguments: Any) -> dict[str, Any]:
        try:
            return await runner.run(job.name, arguments)
        except JobError as exc:
            raise ToolError(str(exc)) from None

    call.__name__ = job.name
    call.__doc__ = job.description
    call.__signature__ = _signature(job)  # type: ignore[attr-defined]
    return call


def build_mcp_server(runner: JobRunner) -> MCPServer:
    """An MCP server whose tools are the runner's jobs (writing ones left out when read-only)."""
    server: MCPServer = MCPServer(
        "remecli", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )
    for job in runner.available():
        server.add_tool(
            _tool_function(runner, job),
            name=job.name,
            description=job.description,
            annotations=ToolAnnotations(read_only_hint=job.read_only, open_world_hint=False),
            structured_output=True,
        )
    return server
