"""`remecli mcp`: the memory jobs as MCP tools, the notes as MCP resources (official `mcp` SDK).

Each tool's input schema is its job's parameter model as is (optional means optional, unknown
arguments refused: `additionalProperties: false`), its output schema the job's result model; the
raw arguments go to the job runner, whose errors are one line saying what to do. Every call runs
through the `Gate` (scope, paths, access log) as the caller: the token's owner over HTTP, the
local user (admin) over stdio. Annotations: `readOnlyHint` from the job, `destructiveHint` for
writing jobs that may change or drop what is there. An answer that says it failed (`ok: false`)
is a tool error. A caller is listed only the tools its token may call and that can work here (the
vector tools only with memory.vector.enabled; called anyway, one says what to turn on).

The Markdown notes (MEMORY.md, memory/, digest/) are resources `remecli://notes/<path>`; list
and read go through the same gate. A note changed by any process is announced to the clients
that subscribed (`subscriptions/listen`, or `resources/subscribe` before 2026-07-28): resource
updated, and the list changed when a note appears or goes (`note_changes`).
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.context import LifespanContextT, RequestT, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    EmptyResult,
    ListResourcesResult,
    ListToolsResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
    UnsubscribeRequestParams,
)

from remecli import __version__
from remecli.ops import Job, JobError, JobRunner
from remecli.surfaces.access import Gate
from remecli.surfaces.job_policy import glob_matches, is_destructive, may_call, reports_failure
from remecli.surfaces.note_changes import NoteChanges
from remecli.surfaces.notes_resources import NOTE_URI, list_notes, note_path, read_note
from remecli.surfaces.tokens import LOCAL_USER, Principal

INSTRUCTIONS = (
    "Long-term memory kept as Markdown files (MEMORY.md, memory/YYYY-MM-DD.md). Search it with "
    "memory_search, read hits with memory_read, feed a finished conversation to memory_record. "
    f"The notes are also resources ({NOTE_URI}<path>)."
)


def caller_of(request: object) -> Principal:
    """The caller of an MCP request, from its transport's request (`ctx.request`): the HTTP
    token's owner, else (stdio: no HTTP request) the local user."""
    scope = getattr(request, "scope", None)
    found = scope.get("state", {}).get("principal") if isinstance(scope, dict) else None
    return found if isinstance(found, Principal) else LOCAL_USER


def _no_call(**_: object) -> None:  # the Tool model wants a function; JobTool.run never calls it
    raise RuntimeError("JobTool runs its job through the gate")


class JobTool(Tool):
    """A tool that hands its raw arguments to the job (the runner validates them)."""

    gate: Any = None

    async def run(
        self,
        arguments: dict[str, Any],
        context: Context[LifespanContextT, RequestT],
        convert_result: bool = False,
    ) -> CallToolResult:
        try:
            request = context.request_context.request
        except ValueError:  # called outside a request
            request = None
        try:
            data = await self.gate.run(caller_of(request), self.name, arguments, "mcp")
        except JobError as exc:  # the text says what to do; the structure as HTTP's error body
            return CallToolResult(
                content=[TextContent(type="text", text=str(exc))],
                structured_content=exc.body(),
                is_error=True,
            )
        text = json.dumps(data, ensure_ascii=False, indent=2)
        return CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content=data,
            is_error=reports_failure(data),
        )


def annotations_of(job: Job) -> ToolAnnotations:
    """readOnlyHint from the job; destructiveHint true only for jobs that change what is there."""
    return ToolAnnotations(
        read_only_hint=job.read_only,
        destructive_hint=is_destructive(job),
        idempotent_hint=job.read_only or job.name in ("memory_reindex", "memory_write"),
        open_world_hint=False,
    )


def job_tool(gate: Gate, job: Job) -> JobTool:
    """The MCP tool for `job`."""
    return JobTool(
        fn=_no_call,
        name=job.name,
        title=None,
        context_kwarg=None,
        description=job.description,
        parameters=job.input_schema(),
        fn_metadata=FuncMetadata(arg_model=ArgModelBase, output_schema=job.output_schema()),
        is_async=True,
        annotations=annotations_of(job),
        gate=gate,
    )


class MemoryServer(MCPServer):
    """MCPServer whose resource list and reads are the notes, as the caller may see them, and
    whose clients hear when a note changes."""

    def __init__(
        self, gate: Gate, changes: NoteChanges, *, instructions: str, tools: list[Tool]
    ) -> None:
        super().__init__(
            name="remecli",
            instructions=instructions,
            version=__version__,
            log_level="WARNING",
            tools=tools,
            subscriptions=changes,
        )
        self.gate = gate
        self.changes = changes
        self._lowlevel_server.add_request_handler(
            "resources/subscribe", SubscribeRequestParams, self._handle_subscribe
        )
        self._lowlevel_server.add_request_handler(
            "resources/unsubscribe", UnsubscribeRequestParams, self._handle_unsubscribe
        )
        self._listen = ListenHandler(changes)
        self._lowlevel_server.add_request_handler(
            "subscriptions/listen", SubscriptionsListenRequestParams, self._handle_listen
        )

    def _check_subscription(self, ctx: ServerRequestContext, uri: str) -> None:
        """Refuse (INVALID_PARAMS) a URI that is not a note, or one the caller may not read."""
        caller = caller_of(ctx.request)
        try:
            path = note_path(uri)
        except JobError as exc:
            raise MCPError(code=INVALID_PARAMS, message=str(exc), data={"uri": uri}) from None
        if caller.paths is not None and not glob_matches(caller.paths, path):
            message = f"token {caller.name!r} may not read {path!r} (its paths: {caller.paths})"
            raise MCPError(code=INVALID_PARAMS, message=message, data={"uri": uri})

    async def _handle_listen(
        self, ctx: ServerRequestContext, params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        for uri in params.notifications.resource_subscriptions or ():
            self._check_subscription(ctx, str(uri))
        return await self._listen(ctx, params)

    async def _handle_subscribe(
        self, ctx: ServerRequestContext, params: SubscribeRequestParams
    ) -> EmptyResult:
        uri = str(params.uri)
        self._check_subscription(ctx, uri)
        self.changes.add_legacy(ctx.session, uri)
        return EmptyResult()

    async def _handle_unsubscribe(
        self, ctx: ServerRequestContext, params: UnsubscribeRequestParams
    ) -> EmptyResult:
        self.changes.remove_legacy(ctx.session, str(params.uri))
        return EmptyResult()

    async def _handle_list_tools(
        self, ctx: ServerRequestContext, params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        caller = caller_of(ctx.request)
        runner = self.gate.runner
        jobs = [(tool, runner.registry.get(tool.name)) for tool in await self.list_tools()]
        return ListToolsResult(  # a job that cannot work here (vector memory off) is not listed;
            # called anyway, it says what to turn on
            tools=[
                tool for tool, job in jobs if job.usable(runner.memory) and may_call(caller, job)
            ]
        )

    async def _handle_list_resources(
        self, ctx: ServerRequestContext, params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        caller = caller_of(ctx.request)
        notes = await list_notes(self.gate, caller)
        return ListResourcesResult(
            resources=[
                Resource(uri=NOTE_URI + path, name=path, mime_type="text/markdown")
                for path in notes
            ]
        )

    async def _handle_read_resource(
        self, ctx: ServerRequestContext, params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        uri = str(params.uri)
        try:
            text = await read_note(self.gate, caller_of(ctx.request), note_path(uri))
        except JobError as exc:
            raise MCPError(code=INVALID_PARAMS, message=str(exc), data={"uri": uri}) from None
        return ReadResourceResult(
            contents=[TextResourceContents(uri=uri, text=text, mime_type="text/markdown")]
        )


def build_mcp_server(runner: JobRunner, gate: Gate | None = None) -> MCPServer:
    """An MCP server whose tools are the runner's jobs (writing ones left out when read-only)."""
    gate = gate or Gate(runner)
    writer = runner.context.writer
    changes = NoteChanges(
        gate.root, lambda rel: rel.endswith(".md") and writer.is_memory_file(gate.root / rel)
    )
    server = MemoryServer(
        gate,
        changes,
        instructions=INSTRUCTIONS,
        tools=[job_tool(gate, job) for job in runner.available()],
    )
    return server
