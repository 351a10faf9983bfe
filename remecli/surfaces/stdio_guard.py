"""Stdio MCP that answers every request and ends quietly.

The SDK's stdio transport drops a line it cannot validate without a reply (params that are a
string, a lone surrogate, JSON nested too deep), so the client waits forever; and a client that
closes its end makes the write fail with a traceback. Here each line is checked first: a request
the SDK would drop gets a JSON-RPC error with its id; a closed output ends the server (exit 0).
As in the SDK, fd 0 reads the null device and fd 1 goes to stderr while serving, so stray output
of handlers and children misses the wire.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from typing import IO, TYPE_CHECKING, TypedDict

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
MAX_DEPTH = 200


RequestId = int | str  # a JSON-RPC request's id


class RpcErrorBody(TypedDict):
    code: int
    message: str


class RpcError(TypedDict):
    """A JSON-RPC error answer (`id` None when the request's could not be read)."""

    jsonrpc: str
    id: RequestId | None
    error: RpcErrorBody


class OutputClosed(Exception):
    """The client closed its end of stdout."""


def _depth_and_id(line: str) -> tuple[int, RequestId | None]:
    """The nesting depth of a JSON text and its top-level "id" (None if not found), in one scan
    that needs no parser (so it works on text too deep or too broken to parse)."""
    depth = deepest = 0
    found: object = None
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == '"':
            end = i + 1
            while end < n and line[end] != '"':
                end += 2 if line[end] == "\\" else 1
            key = line[i + 1 : end]
            i = end + 1
            if depth == 1 and key == "id" and found is None:
                rest = line[i:].lstrip()
                if rest.startswith(":"):
                    with contextlib.suppress(ValueError):
                        found, _ = json.JSONDecoder().raw_decode(rest[1:].lstrip())
            continue
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
        i += 1
    return deepest, found if isinstance(found, int | str) else None


def _has_lone_surrogate(value: object) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def refusal(line: str) -> RpcError | None:
    """The JSON-RPC error answering `line` when the SDK would drop it; None when the SDK
    handles it (valid), or when nothing may be answered (a notification, a response)."""
    depth, found_id = _depth_and_id(line)
    if depth > MAX_DEPTH:
        code, message, request_id = INVALID_REQUEST, f"nested over {MAX_DEPTH} levels", found_id
    else:
        try:
            types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            return None
        except Exception:  # noqa: BLE001 - refused below with a reason of our own
            pass
        try:
            message_obj = json.loads(line)
        except ValueError:
            return _error(found_id, PARSE_ERROR, "parse error: the line is not JSON")
        if not isinstance(message_obj, dict) or "method" not in message_obj:
            code, message, request_id = INVALID_REQUEST, "not a JSON-RPC request", found_id
        elif "id" not in message_obj:
            return None  # a broken notification: JSON-RPC allows no answer
        else:
            request_id = message_obj["id"] if isinstance(message_obj["id"], int | str) else None
            params = message_obj.get("params")
            if params is not None and not isinstance(params, dict):
                code, message = INVALID_PARAMS, "params must be an object"
            elif _has_lone_surrogate(message_obj):
                code, message = INVALID_PARAMS, "text that is not valid Unicode (lone surrogate)"
            else:
                code, message = INVALID_REQUEST, "not a valid JSON-RPC request"
    return _error(request_id, code, message)


def _error(request_id: RequestId | None, code: int, message: str) -> RpcError:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


class LineOut:
    """The transport's stdout: one whole line per write, flushed, under a lock; a closed pipe
    raises OutputClosed (the server then ends quietly)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.lock = anyio.Lock()

    def _write(self, text: str) -> None:
        try:
            self.raw.write(text.encode("utf-8", "backslashreplace"))
            self.raw.flush()
        except (BrokenPipeError, ConnectionResetError, ValueError) as exc:
            raise OutputClosed from exc

    async def write(self, text: str) -> None:
        async with self.lock:
            await anyio.to_thread.run_sync(self._write, text)

    async def flush(self) -> None:
        """Each write is flushed already."""


class GuardedLines:
    """The transport's stdin: lines the SDK would drop are answered here and not passed on."""

    def __init__(self, raw: IO[bytes], out: LineOut) -> None:
        self.raw = raw
        self.out = out

    async def __aiter__(self) -> AsyncIterator[str]:
        while True:
            data = await anyio.to_thread.run_sync(self.raw.readline, abandon_on_cancel=True)
            if not data:
                return
            line = data.decode("utf-8", "replace")
            if not line.strip():
                continue
            answer = refusal(line)
            if answer is None:
                yield line
            elif answer["id"] is not None or answer["error"]["code"] == PARSE_ERROR:
                await self.out.write(json.dumps(answer) + "\n")


@contextlib.contextmanager
def claimed_stdio() -> Iterator[tuple[IO[bytes], IO[bytes]]]:
    """The wire (fd 0 and 1) as private files; fd 0 reads /dev/null and fd 1 writes to stderr
    meanwhile. Restored afterwards (stdout to /dev/null when the client has closed it)."""
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(2, 1)
    reader = os.fdopen(wire_in, "rb", buffering=0)
    writer = os.fdopen(wire_out, "wb")
    try:
        yield reader, writer
    finally:
        with contextlib.suppress(OSError, ValueError):
            writer.close()
        # the reader stays open: a worker thread may still block in it (never recycle its fd)
        os.dup2(null, 1)  # the wire may be gone: nothing more is written to it
        os.close(null)


async def run_stdio(server: MCPServer) -> None:
    """Serve `server` (an MCPServer) over stdio until end of input or a closed output."""
    lowlevel = server._lowlevel_server  # as the SDK's own run_stdio_async does
    with claimed_stdio() as (reader, writer):
        out = LineOut(writer)
        try:
            async with stdio_server(
                stdin=GuardedLines(reader, out),  # type: ignore[arg-type]
                stdout=out,  # type: ignore[arg-type]
            ) as (read_stream, write_stream):
                await lowlevel.run(
                    read_stream, write_stream, lowlevel.create_initialization_options()
                )
        except* OutputClosed:
            pass  # the client closed its end: stop quietly
