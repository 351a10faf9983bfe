"""The HTTP side of the fake OpenAI server: routing, auth, validation, SSE/JSON answers."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .chat_validation import find_violations
from .turns import (
    CutStreamTurn,
    ErrorTurn,
    TextTurn,
    ToolCallsTurn,
    Turn,
    default_error_type,
    resolve_turn,
)
from .wire import (
    ChunkBuilder,
    completion_object,
    content_deltas,
    embedding_inputs,
    embeddings_object,
    role_delta,
    tool_call_deltas,
    turn_usage,
)

if TYPE_CHECKING:
    from .fake_openai import FakeOpenAIServer

DEFAULT_MODEL = "fake-model"
NO_TURN_LEFT = "fake server: no scripted turn left"


# what a server without structured output (an older llama.cpp or LM Studio) answers
RESPONSE_FORMAT_REFUSED = "response_format is not supported by this server"


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received (``body`` is the parsed JSON, or None)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class _Abort(Exception):
    """The connection is gone or the server is stopping: stop answering quietly."""


class FakeOpenAIRequestHandler(BaseHTTPRequestHandler):
    """Answers one connection (HTTP/1.1 keep-alive) for a :class:`FakeOpenAIServer`."""

    protocol_version = "HTTP/1.1"
    server_version = "FakeOpenAI/1.0"
    timeout = 30  # idle keep-alive connections of finished tests end their thread

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log."""

    def do_GET(self) -> None:
        """Route a GET request."""
        self._dispatch("GET")

    def do_POST(self) -> None:
        """Route a POST request."""
        self._dispatch("POST")

    # -- routing ---------------------------------------------------------------------------
    @property
    def fake(self) -> FakeOpenAIServer:
        """The scripted server this handler answers for."""
        assert isinstance(self.server, FakeOpenAIHTTPServer)
        return self.server.fake

    def _dispatch(self, method: str) -> None:
        path = urlsplit(self.path).path.rstrip("/")
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body: Any = None
        bad_json = False
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                bad_json = True
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.fake.record(RecordedRequest(method, path, headers, body))
        try:
            if not self._check_api_key(headers.get("authorization", "")):
                return
            if bad_json:
                self._error(400, "We could not parse the JSON body of your request.")
            elif method == "POST" and path == "/v1/chat/completions":
                self._chat(body)
            elif method == "POST" and path == "/v1/embeddings":
                self._embeddings(body)
            elif method == "GET" and path.startswith("/v1/models"):
                self._models(path.removeprefix("/v1/models").lstrip("/"))
            else:
                self._error(404, f"fake server: unknown path {method} {path}", code="unknown_url")
        except (_Abort, BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True

    def _check_api_key(self, authorization: str) -> bool:
        wanted = self.fake.require_api_key
        if wanted is None:
            return True
        given = authorization.removeprefix("Bearer ").strip()
        if given == wanted:
            return True
        if not given:
            self._error(401, "You didn't provide an API key.", code="invalid_api_key")
        else:
            shown = given[:3] + "*" * max(0, len(given) - 7) + given[-4:]
            self._error(401, f"Incorrect API key provided: {shown}.", code="invalid_api_key")
        return False

    def _model_known(self, model: Any, allowed: list[str] | None) -> bool:
        if allowed is None or model in allowed:
            return True
        self._error(
            404,
            f"The model `{model}` does not exist or you do not have access to it.",
            code="model_not_found",
        )
        return False

    # -- endpoints ----------------------------------------------------------------------------
    def _models(self, model_id: str) -> None:
        names = self.fake.models if self.fake.models is not None else [DEFAULT_MODEL]
        cards = [{"id": n, "object": "model", "created": 0, "owned_by": "fake"} for n in names]
        if not model_id:
            self._json(200, {"object": "list", "data": cards})
        elif model_id in names:
            self._json(200, cards[names.index(model_id)])
        else:
            self._model_known(model_id, names)

    def _embeddings(self, body: Any) -> None:
        if not isinstance(body, dict) or "input" not in body:
            self._error(400, "Missing required parameter: 'input'.", param="input")
            return
        if not self._model_known(body.get("model"), self.fake.embedding_models):
            return
        error = self.fake.next_embedding_error()
        if error is not None:
            self._send_error_turn(error)
            return
        try:
            texts = embedding_inputs(body["input"])
        except ValueError as exc:
            self._error(400, str(exc), param="input")
            return
        dim = body.get("dimensions") or self.fake.embedding_dim
        self._json(
            200,
            embeddings_object(texts, str(body.get("model")), int(dim), body.get("encoding_format")),
        )

    def _chat(self, body: Any) -> None:
        fake = self.fake
        if isinstance(body, dict) and not self._model_known(body.get("model"), fake.models):
            return
        if fake.strict or not isinstance(body, dict):
            violations = find_violations(body, plain=fake.plain_only)
            if violations:
                fake.record_violations([v.message for v in violations])
                self._error(400, violations[0].message, param=violations[0].param)
                return
        if fake.refuse_response_format and isinstance(body, dict) and "response_format" in body:
            self._error(400, RESPONSE_FORMAT_REFUSED, param="response_format")
            return
        queued = fake.next_turn()
        if queued is None:
            self._error(500, NO_TURN_LEFT, code="no_scripted_turn")
            return
        try:
            turn = resolve_turn(queued, body)
        except Exception as exc:  # a test's handler failed: make it visible to the client
            self._error(500, f"fake server: handler raised {exc!r}", code="handler_error")
            return
        if isinstance(turn, ToolCallsTurn):
            for call in turn.calls:
                call.id = call.id or fake.new_call_id()
        self._sleep(turn.delay)
        if isinstance(turn, ErrorTurn):
            self._send_error_turn(turn)
        elif body.get("stream") is True:
            self._stream(turn, body)
        else:
            self._complete(turn, body)

    # -- answers ------------------------------------------------------------------------------
    def _complete(self, turn: Turn, body: dict[str, Any]) -> None:
        completion_id = self.fake.new_completion_id()
        model = str(body.get("model"))
        if isinstance(turn, CutStreamTurn):
            full = TextTurn(turn.text)
            data = json.dumps(
                completion_object(
                    full, completion_id, model, int(time.time()), turn_usage(full, body)
                )
            ).encode()
            self._start(200, "application/json", {"Content-Length": str(len(data))})
            self.wfile.write(data[: len(data) // 2])
            self.close_connection = True
            return
        assert isinstance(turn, TextTurn | ToolCallsTurn)
        usage = turn_usage(turn, body)
        self._json(200, completion_object(turn, completion_id, model, int(time.time()), usage))

    def _stream(self, turn: Turn, body: dict[str, Any]) -> None:
        assert isinstance(turn, TextTurn | ToolCallsTurn | CutStreamTurn)
        options = body.get("stream_options") or {}
        usage_requested = bool(options.get("include_usage"))
        builder = ChunkBuilder(
            self.fake.new_completion_id(),
            str(body.get("model")),
            int(time.time()),
            with_usage_field=usage_requested,
        )
        self._start(
            200,
            "text/event-stream; charset=utf-8",
            {"Transfer-Encoding": "chunked", "Cache-Control": "no-cache"},
        )
        self._event(builder.delta(role_delta(turn)))
        for delta in content_deltas(turn):
            self._sleep(turn.chunk_delay)
            self._event(builder.delta(delta))
        if isinstance(turn, CutStreamTurn):
            if turn.error_message is not None:
                self._event(
                    {
                        "error": {
                            "message": turn.error_message,
                            "type": "server_error",
                            "param": None,
                            "code": None,
                        }
                    }
                )
                self._end_stream()
                return
            self.close_connection = True  # no terminating chunk: the client sees a broken body
            return
        finish_reason = "stop"
        if isinstance(turn, ToolCallsTurn):
            finish_reason = "tool_calls"
            for delta in tool_call_deltas(turn.calls, turn.chunk_size):
                self._sleep(turn.chunk_delay)
                self._event(builder.delta(delta))
        else:
            finish_reason = turn.finish_reason
        self._event(builder.delta({}, finish_reason))
        if usage_requested or self.fake.always_stream_usage:
            self._event(builder.usage(turn_usage(turn, body)))
        self._end_stream()

    def _send_error_turn(self, turn: ErrorTurn) -> None:
        self._error(
            turn.status,
            turn.message,
            type_=turn.type,
            code=turn.code,
            param=turn.param,
            headers=turn.headers,
        )

    # -- low level ----------------------------------------------------------------------------
    def _sleep(self, seconds: float) -> None:
        if seconds > 0 and self.fake.stopping.wait(seconds):
            raise _Abort

    def _start(self, status: int, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("x-request-id", f"req_fake_{id(self):x}")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self._start(
            status, "application/json", {**(headers or {}), "Content-Length": str(len(data))}
        )
        self.wfile.write(data)

    def _error(
        self,
        status: int,
        message: str,
        *,
        type_: str | None = None,
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        error = {
            "message": message,
            "type": type_ or default_error_type(status),
            "param": param,
            "code": code,
        }
        self._json(status, {"error": error}, headers)

    def _event(self, payload: dict[str, Any]) -> None:
        line = "data: " + json.dumps(payload, ensure_ascii=False) + "\n\n"
        self._write_chunk(line.encode("utf-8"))

    def _end_stream(self) -> None:
        self._write_chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")  # the terminating chunk of the chunked body

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))


class FakeOpenAIHTTPServer(ThreadingHTTPServer):
    """The threading HTTP server bound to one :class:`FakeOpenAIServer`."""

    daemon_threads = True
    block_on_close = False
    handler_class: type[FakeOpenAIRequestHandler] = FakeOpenAIRequestHandler

    def __init__(self, address: tuple[str, int], fake: FakeOpenAIServer) -> None:
        super().__init__(address, self.handler_class)
        self.fake = fake

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Ignore clients that hang up (timeouts, cut streams); report anything else."""
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)
