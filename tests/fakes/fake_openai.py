"""A scripted fake OpenAI-compatible HTTP server for tests (standard library only).

Real HTTP on 127.0.0.1 (random free port) served from a background thread, so it keeps answering
while a test's asyncio loop is busy and also serves other processes (a tmux-launched ``remecli``).

Endpoints: ``POST /v1/chat/completions`` (streaming SSE with a final usage chunk, or a plain
``chat.completion``), ``GET /v1/models`` (+ ``/v1/models/{id}``), ``POST /v1/embeddings``
(deterministic unit vectors, float or base64).

Each chat request pops the next scripted turn (FIFO). An empty queue answers
``500 "fake server: no scripted turn left"`` unless a fallback is set. Every request is recorded.
Chat requests are validated like a strict provider (``strict=True`` by default): a malformed
context (orphan ``tool`` message, tool_call without its result, system not first, empty
messages, invalid tool-call JSON, ...) gets ``400 invalid_request_error`` and is listed in
``server.violations``; it does NOT consume a turn.

Usage (fixture ``fake_llm`` from tests/conftest.py; works in sync and async tests)::

    import openai

    def test_answer(fake_llm):
        # one queued turn answers one chat request, in order
        fake_llm.add_text("Hello there", chunk_size=3)            # streamed in 3-char pieces
        fake_llm.add_tool_calls([("ls", {"path": "."})], text="Let me look.")
        fake_llm.add_error(429, "Rate limit reached", code="rate_limit_exceeded")
        fake_llm.add_text("slow", delay=5.0)                      # for timeout tests
        fake_llm.add_cut_stream("partial ans")                    # connection drops mid-stream
        fake_llm.add_handler(lambda body: f"you said {body['messages'][-1]['content']}")

        client = openai.OpenAI(base_url=fake_llm.base_url, api_key="sk-test", max_retries=0)
        stream = client.chat.completions.create(
            model="fake-model", messages=[{"role": "user", "content": "hi"}], stream=True)
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        assert text == "Hello there"
        assert fake_llm.last_messages()[-1] == {"role": "user", "content": "hi"}

    # agentscope: OpenAIChatModel(credential=OpenAICredential(api_key="sk-test",
    #     base_url=fake_llm.base_url), model="fake-model", stream=True, max_retries=0)

Options: ``FakeOpenAIServer(models=["m1"])`` → an unknown chat model gets 404 model_not_found
(``None``, the default, accepts any model and lists ``fake-model``); ``require_api_key="sk-test"``
→ 401 invalid_api_key on mismatch; ``strict=False`` turns validation off; ``plain_only=True``
also rejects a ``name`` field and text-only content sent as a list of parts; ``embedding_dim=16``;
``always_stream_usage=True`` sends the usage chunk even without ``stream_options.include_usage``;
``request_log="requests.jsonl"`` appends every request as a JSON line;
``refuse_response_format=True`` answers 400 to a request with ``response_format`` (no turn used).

Scripting details: ``add_error(..., headers={"retry-after": "0"})`` adds response headers;
``set_fallback("text" | turn | handler)`` answers when the queue is empty; a handler may return
any turn object from :mod:`tests.fakes.turns` (``TextTurn``, ``ToolCallsTurn``, ``ErrorTurn``,
``CutStreamTurn``) or a str. Tool-call ids default to ``call_fake_1``, ``call_fake_2``, ...
A cut stream raises ``openai.APIConnectionError`` in the client (``add_cut_stream(text,
error_message="...")`` sends a mid-stream error event instead: ``openai.APIError``); a ``delay``
longer than the client timeout raises ``openai.APITimeoutError``. Checks run in this order:
API key (401), model (404), strict validation (400), then the next turn. For a client in another
process: ``server.wait_for_requests(1, path="/v1/chat/completions")`` (or ``..._async``).
Import as ``tests.fakes`` (not ``fakes``).

Standalone (manual or tmux use)::

    python -m tests.fakes.fake_openai --port 8765 --script turns.json [--fallback-text ok]
    # more: [--model NAME] [--api-key KEY] [--no-strict] [--log requests.jsonl]

prints ``http://127.0.0.1:8765/v1`` and serves until killed; ``turns.json`` is a JSON list of
turns as accepted by :func:`tests.fakes.turns.turn_from_dict`.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import os
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from .http_handler import FakeOpenAIHTTPServer, RecordedRequest
from .turns import (
    DEFAULT_CHUNK_SIZE,
    CutStreamTurn,
    ErrorTurn,
    Handler,
    HandlerTurn,
    QueuedTurn,
    TextTurn,
    ToolCallSpec,
    ToolCallsTurn,
    default_error_type,
    make_tool_calls,
)


class FakeOpenAIServer:
    """A scripted OpenAI-compatible server on 127.0.0.1; see the module docstring."""

    http_server_class: type[FakeOpenAIHTTPServer] = FakeOpenAIHTTPServer  # subclasses swap it

    def __init__(
        self,
        *,
        models: Sequence[str] | None = None,
        require_api_key: str | None = None,
        strict: bool = True,
        embedding_dim: int = 16,
        embedding_models: Sequence[str] | None = None,
        always_stream_usage: bool = True,
        host: str = "127.0.0.1",
        port: int = 0,
        request_log: str | os.PathLike[str] | None = None,
        plain_only: bool = False,
        refuse_response_format: bool = False,
    ) -> None:
        self.models = list(models) if models is not None else None
        self.embedding_models = list(embedding_models) if embedding_models is not None else None
        self.require_api_key = require_api_key
        self.strict = strict
        self.plain_only = plain_only  # strict also rejects `name` and text as a list of parts
        # a 400 for any chat request carrying `response_format` (no turn consumed)
        self.refuse_response_format = refuse_response_format
        self.embedding_dim = embedding_dim
        self.always_stream_usage = always_stream_usage
        self.request_log = request_log
        self.violations: list[str] = []
        self.stopping = threading.Event()
        self._host, self._port = host, port
        self._lock = threading.Lock()
        self._turns: deque[QueuedTurn] = deque()
        self._embedding_errors: deque[ErrorTurn] = deque()
        self._fallback: QueuedTurn | None = None
        self._requests: list[RecordedRequest] = []
        self._counter = 0
        self._call_counter = 0
        self._httpd: FakeOpenAIHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        """Bind the port and serve from a daemon thread."""
        httpd = self.http_server_class((self._host, self._port), self)
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-openai",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; delayed answers still waiting are abandoned."""
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound TCP port."""
        if self._httpd is None:
            raise RuntimeError("fake server is not started")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """The ``base_url`` for OpenAI clients, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self._host}:{self.port}/v1"

    # -- scripting ---------------------------------------------------------------------------
    def add_turn(self, turn: QueuedTurn) -> FakeOpenAIServer:
        """Queue any turn object (see tests.fakes.turns)."""
        with self._lock:
            self._turns.append(turn)
        return self

    def add_text(
        self,
        text: str,
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        delay: float = 0.0,
        chunk_delay: float = 0.0,
        reasoning: str | None = None,
        usage: dict[str, int] | None = None,
        finish_reason: str = "stop",
    ) -> FakeOpenAIServer:
        """Answer the next chat request with ``text``.

        ``delay`` waits before the response headers; ``chunk_delay`` between stream chunks;
        ``reasoning`` is streamed first as ``reasoning_content``; ``usage`` overrides
        ``prompt_tokens``/``completion_tokens`` (otherwise about chars/4).
        """
        return self.add_turn(
            TextTurn(text, chunk_size, delay, chunk_delay, reasoning, usage, finish_reason)
        )

    def add_tool_calls(
        self,
        calls: Sequence[ToolCallSpec],
        text: str = "",
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        delay: float = 0.0,
        chunk_delay: float = 0.0,
        reasoning: str | None = None,
        usage: dict[str, int] | None = None,
    ) -> FakeOpenAIServer:
        """Answer with tool calls ``[(name, args_dict_or_raw_json[, call_id]), ...]``.

        Ids default to ``call_fake_<n>`` (n counts up per server, from 1).
        """
        tool_calls = make_tool_calls(calls)
        for call in tool_calls:
            call.id = call.id or self.new_call_id()
        return self.add_turn(
            ToolCallsTurn(tool_calls, text, chunk_size, delay, chunk_delay, reasoning, usage)
        )

    def add_error(
        self,
        status: int,
        message: str,
        *,
        type: str | None = None,
        code: str | None = None,
        param: str | None = None,
        delay: float = 0.0,
        headers: dict[str, str] | None = None,
    ) -> FakeOpenAIServer:
        """Answer with HTTP ``status`` and ``{"error": {message, type, param, code}}``.

        ``type`` defaults from the status (invalid_request_error, requests, server_error).
        Example: ``add_error(400, "too long", code="context_length_exceeded")``.
        """
        return self.add_turn(
            ErrorTurn(
                status,
                message,
                type or default_error_type(status),
                code,
                param,
                delay,
                dict(headers or {}),
            )
        )

    def add_cut_stream(
        self,
        text: str,
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        delay: float = 0.0,
        chunk_delay: float = 0.0,
        error_message: str | None = None,
    ) -> FakeOpenAIServer:
        """Stream ``text`` then drop the connection abruptly (no finish chunk, no [DONE]).

        With ``error_message``, end with a mid-stream ``data: {"error": ...}`` event instead
        (the openai client raises ``openai.APIError`` carrying that message).
        """
        return self.add_turn(CutStreamTurn(text, chunk_size, delay, chunk_delay, error_message))

    def add_handler(self, handler: Handler) -> FakeOpenAIServer:
        """Answer with ``handler(request_body)``: a turn object or a str (→ text turn)."""
        return self.add_turn(HandlerTurn(handler))

    def set_fallback(self, turn: QueuedTurn | Handler | str | None) -> FakeOpenAIServer:
        """What to answer when the queue is empty (None: the 500 'no scripted turn left')."""
        if isinstance(turn, str):
            turn = TextTurn(turn)
        elif callable(turn) and not isinstance(turn, HandlerTurn):
            turn = HandlerTurn(turn)
        with self._lock:
            self._fallback = turn
        return self

    def add_embedding_error(
        self, status: int, message: str, *, type: str | None = None, code: str | None = None
    ) -> FakeOpenAIServer:
        """Make the next embeddings request fail (embeddings succeed when this queue is empty)."""
        with self._lock:
            self._embedding_errors.append(
                ErrorTurn(status, message, type or default_error_type(status), code)
            )
        return self

    @property
    def pending_turns(self) -> int:
        """How many scripted chat turns are still queued."""
        with self._lock:
            return len(self._turns)

    def clear(self) -> None:
        """Drop queued turns, recorded requests and violations."""
        with self._lock:
            self._turns.clear()
            self._embedding_errors.clear()
            self._requests.clear()
            self.violations.clear()

    # -- inspection --------------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order (a copy)."""
        with self._lock:
            return list(self._requests)

    def chat_requests(self) -> list[RecordedRequest]:
        """Every ``/v1/chat/completions`` request, in order (``.body`` is the parsed JSON)."""
        return [r for r in self.requests if r.path == "/v1/chat/completions"]

    def last_messages(self) -> list[dict[str, Any]]:
        """A copy of the ``messages`` of the last chat request (AssertionError if none)."""
        chats = self.chat_requests()
        assert chats, "fake server: no chat request received"
        return copy.deepcopy(chats[-1].body.get("messages", []))

    def wait_for_requests(
        self, count: int, timeout: float = 10.0, path: str | None = None
    ) -> list[RecordedRequest]:
        """Block until ``count`` requests (to ``path``, if given) arrived; return them.

        For clients in other processes, e.g. ``path="/v1/chat/completions"`` in a tmux test.
        """
        deadline = time.monotonic() + timeout
        while len(matching := self._matching(path)) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self._enough(matching, count)

    async def wait_for_requests_async(
        self, count: int, timeout: float = 10.0, path: str | None = None
    ) -> list[RecordedRequest]:
        """Async version of :meth:`wait_for_requests` (polls without blocking the loop)."""
        deadline = time.monotonic() + timeout
        while len(matching := self._matching(path)) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return self._enough(matching, count)

    def _matching(self, path: str | None) -> list[RecordedRequest]:
        return [r for r in self.requests if path is None or r.path == path]

    @staticmethod
    def _enough(matching: list[RecordedRequest], count: int) -> list[RecordedRequest]:
        if len(matching) < count:
            raise TimeoutError(f"fake server: got {len(matching)} of {count} requests")
        return matching

    # -- used by the request handler -----------------------------------------------------------
    def record(self, request: RecordedRequest) -> None:
        """Store a received request (and append it to ``request_log`` as a JSON line)."""
        with self._lock:
            self._requests.append(request)
            if self.request_log is not None:
                with open(self.request_log, "a", encoding="utf-8") as log:
                    log.write(json.dumps(dataclasses.asdict(request), ensure_ascii=False) + "\n")

    def record_violations(self, messages: Sequence[str]) -> None:
        """Store strict-validation failures."""
        with self._lock:
            self.violations.extend(messages)

    def next_turn(self) -> QueuedTurn | None:
        """Pop the next scripted turn (or the fallback, or None)."""
        with self._lock:
            return self._turns.popleft() if self._turns else self._fallback

    def next_embedding_error(self) -> ErrorTurn | None:
        """Pop the next scripted embeddings error, if any."""
        with self._lock:
            return self._embedding_errors.popleft() if self._embedding_errors else None

    def new_call_id(self) -> str:
        """A fresh tool-call id: ``call_fake_1``, ``call_fake_2``, …"""
        with self._lock:
            self._call_counter += 1
            return f"call_fake_{self._call_counter}"

    def new_completion_id(self) -> str:
        """A fresh ``chatcmpl-…`` id."""
        with self._lock:
            self._counter += 1
            return f"chatcmpl-fake{self._counter:06d}"


if __name__ == "__main__":
    from .cli import main

    main()
