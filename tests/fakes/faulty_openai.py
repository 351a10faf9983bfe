"""A fault-injecting fake OpenAI server: the scripted fake plus faults real servers produce.

Built on :class:`tests.fakes.FakeOpenAIServer` (same scripting, validation and recording);
these extra turns answer one chat request each:

- ``add_drip(seconds)``: 200, the stream starts, then only SSE keep-alive comments (a hung
  generation behind a proxy): no chunk ever arrives;
- ``add_hang(seconds)``: no response headers at all for ``seconds``;
- ``add_empty_choices()``: 200 with ``choices: []`` (stream: one such chunk, then ``[DONE]``);
- ``add_garbage(body)``: 200 whose body is not JSON (an HTML error page from a gateway);
- ``add_cut_tool_call(name, partial_arguments)``: a tool call whose arguments stream is cut
  mid-JSON (the connection drops).

Errors with headers (429 + ``Retry-After``), 5xx, 401, context overflow, malformed or
non-object tool arguments and unknown tools use the base server's ``add_error`` and
``add_tool_calls``. A refused connection is a ``base_url`` on a closed port (``closed_url()``).
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from typing import Any

from .fake_openai import FakeOpenAIServer
from .http_handler import FakeOpenAIHTTPServer, FakeOpenAIRequestHandler
from .turns import Turn
from .wire import ChunkBuilder


@dataclass
class DripTurn:
    """Start a stream, then send only keep-alive comments for ``seconds``."""

    seconds: float
    delay: float = 0.0


@dataclass
class EmptyChoicesTurn:
    """200 with ``choices: []``."""

    delay: float = 0.0


@dataclass
class GarbageTurn:
    """200 whose body is ``body`` (not JSON, not SSE)."""

    body: str = "<html><body>502 Bad Gateway</body></html>"
    delay: float = 0.0


@dataclass
class CutToolCallTurn:
    """Stream a tool call's header and part of its arguments, then drop the connection."""

    name: str
    partial_arguments: str
    call_id: str = "call_cut_1"
    delay: float = 0.0


FaultTurn = DripTurn | EmptyChoicesTurn | GarbageTurn | CutToolCallTurn


class FaultyRequestHandler(FakeOpenAIRequestHandler):
    """Answers fault turns; every other turn is answered by the base handler."""

    def _stream(self, turn: Turn, body: dict[str, Any]) -> None:
        if not isinstance(turn, FaultTurn):
            super()._stream(turn, body)
        elif isinstance(turn, GarbageTurn):
            self._garbage(turn)
        else:
            builder = ChunkBuilder(
                self.fake.new_completion_id(), str(body.get("model")), int(time.time()), False
            )
            self._start(
                200,
                "text/event-stream; charset=utf-8",
                {"Transfer-Encoding": "chunked", "Cache-Control": "no-cache"},
            )
            if isinstance(turn, DripTurn):
                self._event(builder.delta({"role": "assistant", "content": ""}))
                deadline = time.monotonic() + turn.seconds
                while time.monotonic() < deadline:
                    self._write_chunk(b": keep-alive\n\n")
                    self._sleep(0.05)
                self._end_stream()
            elif isinstance(turn, EmptyChoicesTurn):
                self._event({**builder.delta({}), "choices": []})
                self._end_stream()
            else:
                header = {"index": 0, "id": turn.call_id, "type": "function"}
                function = {"name": turn.name, "arguments": ""}
                self._event(builder.delta({"role": "assistant", "content": None}))
                self._event(builder.delta({"tool_calls": [{**header, "function": function}]}))
                piece = {"index": 0, "function": {"arguments": turn.partial_arguments}}
                self._event(builder.delta({"tool_calls": [piece]}))
                self.close_connection = True  # no finish chunk: the client sees a broken body

    def _complete(self, turn: Turn, body: dict[str, Any]) -> None:
        if not isinstance(turn, FaultTurn):
            super()._complete(turn, body)
        elif isinstance(turn, GarbageTurn):
            self._garbage(turn)
        elif isinstance(turn, EmptyChoicesTurn):
            payload = {
                "id": self.fake.new_completion_id(),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": str(body.get("model")),
                "choices": [],
            }
            self._json(200, payload)
        elif isinstance(turn, DripTurn):
            self._sleep(turn.seconds)
            self._json(200, {"choices": []})
        else:
            data = json.dumps({"choices": [{"message": {"tool_calls": [{"id": turn.call_id}]}}]})
            self._start(200, "application/json", {"Content-Length": str(len(data) * 2)})
            self.wfile.write(data.encode()[: len(data) // 2])
            self.close_connection = True

    def _garbage(self, turn: GarbageTurn) -> None:
        data = turn.body.encode("utf-8")
        self._start(200, "text/html", {"Content-Length": str(len(data))})
        self.wfile.write(data)


class FaultyHTTPServer(FakeOpenAIHTTPServer):
    """The threading HTTP server with the fault-answering handler."""

    handler_class = FaultyRequestHandler


class FaultyOpenAIServer(FakeOpenAIServer):
    """The scripted fake server that can also answer with the faults listed above."""

    http_server_class = FaultyHTTPServer

    def add_drip(self, seconds: float) -> FaultyOpenAIServer:
        """A stream that starts and then sends only keep-alive comments for ``seconds``."""
        self.add_turn(DripTurn(seconds))  # type: ignore[arg-type]
        return self

    def add_hang(self, seconds: float) -> FaultyOpenAIServer:
        """No response headers for ``seconds`` (then an answer nobody waits for)."""
        self.add_text("too late", delay=seconds)
        return self

    def add_empty_choices(self) -> FaultyOpenAIServer:
        """200 with ``choices: []``."""
        self.add_turn(EmptyChoicesTurn())  # type: ignore[arg-type]
        return self

    def add_garbage(self, body: str = GarbageTurn.body) -> FaultyOpenAIServer:
        """200 whose body is not JSON."""
        self.add_turn(GarbageTurn(body))  # type: ignore[arg-type]
        return self

    def add_cut_tool_call(self, name: str, partial_arguments: str) -> FaultyOpenAIServer:
        """A tool call whose arguments are cut mid-JSON by a dropped connection."""
        self.add_turn(CutToolCallTurn(name, partial_arguments, self.new_call_id()))  # type: ignore[arg-type]
        return self


def closed_url() -> str:
    """A ``base_url`` on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
