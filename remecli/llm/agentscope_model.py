"""The agentscope adapter: `ChatModel` on agentscope's `OpenAIChatModel`.

The one module of remecli that subclasses agentscope's chat model and formatter (a test keeps it
so). It adds to `OpenAIChatModel`:

- a deadline on every request (`build_chat_model`'s docstring has the rules);
- a 200 with no choices, or a body that is not the API's answer, as a clear error;
- the plainest wire shape of messages (`remecli.llm.wire_format.plain_message`).

Why private methods are overridden here (agentscope 2.0.11 has no public hook for these):
the public `__call__` turns a cancellation of the request into an answer marked `INTERRUPTED`,
so a deadline put around it cannot tell "the server hung" from "the user pressed Esc"; only
`_call_api` sees the provider's raw result (before the retry loop and the stream accumulator).
The HTTP response's content type and a body the SDK could not parse are only visible in
`_parse_stream_response` / `_parse_completion_response` (an httpx response hook would see them,
but the SDK turns any error raised there into a retried "connection error", which tells the user
the wrong thing). The formatter's override is public (`format`).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from remecli.llm.chat_model import ChatMessage, JSONSchema, JSONValue
from remecli.llm.endpoint import Endpoint, missing_key_message
from remecli.llm.errors import EmptyAnswerError, ModelNotConfigured, NotJSONAnswerError
from remecli.llm.json_answer import require_json
from remecli.llm.wire_format import plain_message

if TYPE_CHECKING:
    from agentscope.message import Msg
    from agentscope.model import ChatModelBase, OpenAIChatModel

# Placeholder key for local servers (vLLM, Ollama, LM Studio) that ignore authentication.
_NO_KEY = "not-needed"


class AgentscopeChatModel:
    """A `ChatModel` backed by an agentscope chat model (the agent loop drives the same one)."""

    def __init__(self, model: ChatModelBase) -> None:
        self._model = model

    @property
    def model_name(self) -> str:
        """The model's name at its endpoint."""
        return str(self._model.model)

    def agent_model(self) -> ChatModelBase:
        """The agentscope model, for `agentscope.agent.Agent(model=…)`."""
        return self._model

    async def stream_text(self, messages: Sequence[ChatMessage]) -> AsyncIterator[str]:
        """Text pieces of the answer; `asyncio.CancelledError` when the call was interrupted.

        agentscope's model swallows a cancellation and returns an answer marked `INTERRUPTED`
        instead: that is turned back into `asyncio.CancelledError` here.
        """
        async for piece in self._text_pieces(messages):
            yield piece

    async def _text_pieces(
        self, messages: Sequence[ChatMessage], **request: Any
    ) -> AsyncIterator[str]:
        """`stream_text`, with extra request fields (`response_format`) passed to the API."""
        from agentscope.model import ChatResponse, FinishedReason

        response = await self._model(messages=[_to_msg(m) for m in messages], **request)
        if isinstance(response, ChatResponse):
            if response.finished_reason == FinishedReason.INTERRUPTED:
                raise asyncio.CancelledError("the model call was interrupted")
            yield _text(response)
            return
        sent = ""
        interrupted = False
        async for chunk in response:
            interrupted |= chunk.finished_reason == FinishedReason.INTERRUPTED
            text = _text(chunk)
            if not chunk.is_last:  # a delta
                sent += text
                if text and not interrupted:
                    yield text
            elif text.startswith(sent) and not interrupted:  # the whole answer: send the rest
                if text[len(sent) :]:
                    yield text[len(sent) :]
                sent = text
        if interrupted:
            raise asyncio.CancelledError("the model call was interrupted")

    async def complete_json(
        self, messages: Sequence[ChatMessage], schema: JSONSchema | None = None
    ) -> JSONValue:
        """The JSON value of the answer (`remecli.llm.json_answer.require_json`).

        Asked with `response_format` unless this endpoint refused it before
        (`remecli.llm.structured_output`); a refusal falls back to asking in plain words.
        """
        from remecli.llm import structured_output

        client = getattr(self._model, "client", None)
        endpoint = (str(getattr(client, "base_url", "")), self.model_name)
        if structured_output.accepted(endpoint):
            request = {"response_format": structured_output.response_format(schema)}
            try:
                text = "".join([p async for p in self._text_pieces(messages, **request)])
            except Exception as exc:
                if not structured_output.refused_response_format(exc):
                    raise
                structured_output.remember_refusal(endpoint)
            else:
                return require_json(text, schema)
        return require_json("".join([p async for p in self._text_pieces(messages)]), schema)

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        client = getattr(self._model, "client", None)
        if client is not None:
            await client.close()


def _to_msg(message: ChatMessage) -> Msg:
    from agentscope.message import AssistantMsg, SystemMsg, UserMsg

    if message.role == "system":
        return SystemMsg(name="system", content=message.content)
    if message.role == "assistant":
        return AssistantMsg(name="assistant", content=message.content)
    return UserMsg(name="user", content=message.content)


def _text(response: Any) -> str:
    return "".join(getattr(b, "text", "") for b in response.content if b.type == "text")


def build_chat_model(
    settings: Endpoint, *, context_size: int = 128_000, stream: bool = True
) -> AgentscopeChatModel:
    """A `ChatModel` for any OpenAI-compatible endpoint, every request time-bounded.

    Retries are owned by `remecli.llm.retry` (exponential backoff), so both agentscope's and
    the openai SDK's own retry loops are switched off here: no stacked retries.

    `settings.timeout` bounds every request of this model (the chat, the compactor and the
    summarizer all build theirs here): a non-streamed answer must arrive whole within it, a
    streamed one must start within it and never go that long without a chunk (a server that
    drips keep-alive bytes forever is cut off too). The SDK's own per-read timeout stays on.
    """
    from agentscope.credential import OpenAICredential
    from pydantic import SecretStr

    model_class: Any = _bounded_model_class()
    model: OpenAIChatModel = model_class(
        credential=OpenAICredential(
            api_key=SecretStr(settings.api_key or _NO_KEY), base_url=settings.base_url
        ),
        model=settings.model_name,
        parameters=model_class.Parameters(temperature=settings.temperature),
        stream=stream,
        max_retries=0,
        context_size=context_size,
        client_kwargs={"max_retries": 0, "timeout": settings.timeout},
        request_timeout=settings.timeout,
        text_tool_calls=getattr(settings, "text_tool_calls", True),
        formatter=plain_formatter_class()(),
        unconfigured=missing_key_message(settings),  # the gate every request passes
    )
    return AgentscopeChatModel(model)


@functools.cache
def plain_formatter_class() -> type:
    """agentscope's OpenAI chat formatter, with `plain_message` applied to what it builds."""
    from agentscope.formatter import OpenAIChatFormatter

    class PlainOpenAIChatFormatter(OpenAIChatFormatter):
        """OpenAI chat formatting in the plainest wire shape (`remecli.llm.wire_format`)."""

        async def format(self, msgs: list[Any]) -> list[dict[str, Any]]:
            return [plain_message(m) for m in await super().format(msgs)]

    return PlainOpenAIChatFormatter


@functools.cache
def _bounded_model_class() -> type[OpenAIChatModel]:
    """`OpenAIChatModel` with a deadline on every request (built once, agentscope loads lazily).

    The private overrides are explained in the module docstring. agentscope's own log lines
    ("All 1 attempt(s) failed …") go to the log file, never the terminal, in every process that
    builds a model.
    """
    from agentscope.model import OpenAIChatModel

    from remecli.llm.logs import route_runtime_logs

    route_runtime_logs()

    class BoundedOpenAIChatModel(OpenAIChatModel):
        """An OpenAI chat model whose requests cannot hang: see `build_chat_model`."""

        def __init__(
            self,
            *args: Any,
            request_timeout: float,
            text_tool_calls: bool = True,
            unconfigured: str | None = None,
            **kwargs: Any,
        ) -> None:
            super().__init__(*args, **kwargs)
            self.request_timeout = request_timeout
            self.text_tool_calls = text_tool_calls
            self.unconfigured = unconfigured  # why no request may leave (None: they may)

        async def __call__(self, messages: Any, tools: Any = None, *a: Any, **kw: Any) -> Any:
            """The answer; a tool call written as text becomes a real one (`text_tool_calls`)."""
            from remecli.llm import text_tool_calls as text_calls

            result = await super().__call__(messages, tools, *a, **kw)
            offered = text_calls.offered_tool_names(tools) if self.text_tool_calls else set()
            if not offered:
                return result
            if isinstance(result, AsyncGenerator):
                return text_calls.rewrite_stream(result, offered)
            return text_calls.rewrite_response(result, offered)

        async def _call_api(self, *args: Any, **kwargs: Any) -> Any:
            if self.unconfigured:  # no model configured: nothing is sent anywhere
                raise ModelNotConfigured(self.unconfigured)
            try:
                result = await asyncio.wait_for(
                    super()._call_api(*args, **kwargs), self.request_timeout
                )
            except TimeoutError:
                raise request_timed_out(str(self.client.base_url)) from None
            if isinstance(result, AsyncGenerator):
                return require_an_answer(
                    idle_bounded(result, self.request_timeout, str(self.client.base_url))
                )
            if not result.content:
                raise EmptyAnswerError("the answer held no choices")
            return result

        async def _parse_stream_response(self, start_datetime: Any, response: Any) -> Any:
            _check_content_type(getattr(response, "response", None), "text/event-stream")
            watched = _ChoiceWatch(response)
            answered = False
            async for item in super()._parse_stream_response(start_datetime, watched):  # type: ignore[arg-type]
                answered = answered or bool(item.content)
                yield item
            if not answered and watched.choices:  # choices came, all of them empty
                raise EmptyAnswerError(empty_answer_detail(watched.finish_reason))

        def _parse_completion_response(self, start_datetime: Any, response: Any, *a: Any) -> Any:
            if isinstance(response, str):  # the SDK hands back a body it could not parse
                raise NotJSONAnswerError(_preview(response))
            result = super()._parse_completion_response(start_datetime, response, *a)
            if not result.content and getattr(response, "choices", None):
                reason = getattr(response.choices[0], "finish_reason", None)
                raise EmptyAnswerError(empty_answer_detail(reason))
            return result

    return BoundedOpenAIChatModel


async def require_an_answer(stream: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """Yield from a stream of `ChatResponse`s; `EmptyAnswerError` if none carried content."""
    answered = False
    async for item in stream:
        answered = answered or bool(item.content)
        yield item
    if not answered:
        raise EmptyAnswerError("the stream carried no choices")


def empty_answer_detail(finish_reason: str | None) -> str:
    """Why an answer that came with choices is empty, for `EmptyAnswerError`."""
    return f"it held no text and no tool calls; finish_reason {finish_reason or 'none'}"


class _ChoiceWatch:
    """The SDK's stream as agentscope reads it (`async with … as s: async for chunk in s`),
    counting the chunks that carried choices and keeping the last finish reason."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.choices = 0
        self.finish_reason: str | None = None
        self._stream: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.response, name)

    async def __aenter__(self) -> _ChoiceWatch:
        self._stream = await self.response.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.response.__aexit__(*exc)

    async def __aiter__(self) -> AsyncIterator[Any]:
        async for chunk in self._stream:
            if getattr(chunk, "choices", None):
                self.choices += 1
                self.finish_reason = chunk.choices[0].finish_reason or self.finish_reason
            yield chunk


def _check_content_type(http_response: Any, expected: str) -> None:
    """A 200 whose body is not what was asked for (an HTML page from a gateway) is an error."""
    content_type = str(getattr(http_response, "headers", {}).get("content-type", ""))
    if content_type and expected not in content_type and "json" not in content_type:
        raise NotJSONAnswerError(f"a {content_type.split(';')[0]} body instead of a stream")


def _preview(body: str) -> str:
    text = " ".join(body.split())
    return f"the body starts {text[:60]!r}" if text else "an empty body"


async def idle_bounded(
    stream: AsyncGenerator[Any, None], timeout: float, url: str
) -> AsyncIterator[Any]:
    """Yield from `stream`, failing with a timeout when no item arrives for `timeout` seconds."""
    try:
        while True:
            try:
                item = await asyncio.wait_for(anext(stream), timeout)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise request_timed_out(url) from None
            yield item
    finally:
        await stream.aclose()


def request_timed_out(url: str) -> Exception:
    """The SDK's own timeout error, so error mapping and retries treat it like any timeout."""
    import openai

    try:  # the HTTP client the installed openai SDK is built on
        import httpx2 as http
    except ImportError:  # older SDKs
        import httpx as http  # type: ignore[no-redef]

    request: Any = http.Request("POST", url.rstrip("/") + "/chat/completions")
    return openai.APITimeoutError(request=request)
