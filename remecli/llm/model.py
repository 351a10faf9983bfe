"""Build the agentscope chat model from settings: one place that knows the provider wiring."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING, Any

from remecli.llm.endpoint import Endpoint
from remecli.llm.errors import EmptyAnswerError, NotJSONAnswerError
from remecli.llm.wire_format import plain_formatter_class

if TYPE_CHECKING:
    from agentscope.model import OpenAIChatModel

# Placeholder key for local servers (vLLM, Ollama, LM Studio) that ignore authentication.
_NO_KEY = "not-needed"


def build_chat_model(
    settings: Endpoint, *, context_size: int = 128_000, stream: bool = True
) -> OpenAIChatModel:
    """An `OpenAIChatModel` for any OpenAI-compatible endpoint, every request time-bounded.

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
        formatter=plain_formatter_class()(),
    )
    return model


@functools.cache
def _bounded_model_class() -> type[OpenAIChatModel]:
    """`OpenAIChatModel` with a deadline on every request (built once, agentscope loads lazily)."""
    from agentscope.model import OpenAIChatModel

    class BoundedOpenAIChatModel(OpenAIChatModel):
        """An OpenAI chat model whose requests cannot hang: see `build_chat_model`."""

        def __init__(self, *args: Any, request_timeout: float, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.request_timeout = request_timeout

        async def _call_api(self, *args: Any, **kwargs: Any) -> Any:
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
            async for item in super()._parse_stream_response(start_datetime, response):
                yield item

        def _parse_completion_response(self, start_datetime: Any, response: Any, *a: Any) -> Any:
            if isinstance(response, str):  # the SDK hands back a body it could not parse
                raise NotJSONAnswerError(_preview(response))
            return super()._parse_completion_response(start_datetime, response, *a)

    return BoundedOpenAIChatModel


async def require_an_answer(stream: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """Yield from a stream of `ChatResponse`s; `EmptyAnswerError` if none carried content."""
    answered = False
    async for item in stream:
        answered = answered or bool(item.content)
        yield item
    if not answered:
        raise EmptyAnswerError("the stream carried no choices")


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
