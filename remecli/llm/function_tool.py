"""agentscope's FunctionTool with argument checking: the one subclass of it in remecli."""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from typing import Any

from agentscope.message import ToolResultState
from agentscope.tool import FunctionTool, ToolChunk, ToolResponse

from remecli.llm.tool_results import error


class CheckedFunctionTool(FunctionTool):
    """A FunctionTool that refuses unknown arguments with a message naming the accepted ones,
    and accepts a returned (or yielded) `ToolResponse` as well as a `ToolChunk`.

    agentscope 2.0.11's FunctionTool stringifies a returned ToolResponse into a text block, so
    the function is wrapped to hand back chunks (`as_chunk`); the tool's name, description and
    input schema still come from the function itself.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        input_schema: dict[str, Any] | None = None,
        **options: Any,
    ) -> None:
        described = FunctionTool(func, name, description, input_schema)
        super().__init__(
            _returning_chunks(func),
            name=described.name,
            description=described.description,
            input_schema=described.input_schema,
            **options,
        )

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


def as_chunk(result: Any) -> Any:
    """A `ToolResponse` as the `ToolChunk` that says the same; anything else unchanged."""
    if not isinstance(result, ToolResponse):
        return result
    state = ToolResultState.RUNNING
    if result.state != ToolResultState.SUCCESS:
        state = result.state
    return ToolChunk(content=result.content, state=state, metadata=result.metadata)


def _returning_chunks(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func` with every `ToolResponse` it returns or yields turned into a `ToolChunk`."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = func(*args, **kwargs)
        if inspect.isawaitable(result):
            return _awaited_chunk(result)
        if isinstance(result, AsyncGenerator):
            return _async_chunks(result)
        if isinstance(result, Generator):
            return _chunks(result)
        return as_chunk(result)

    return wrapper


async def _awaited_chunk(result: Any) -> Any:
    value = await result
    if isinstance(value, AsyncGenerator):
        return _async_chunks(value)
    return as_chunk(value)


async def _async_chunks(results: AsyncIterator[Any]) -> AsyncIterator[Any]:
    async for item in results:
        yield as_chunk(item)


def _chunks(results: Iterator[Any]) -> Iterator[Any]:
    for item in results:
        yield as_chunk(item)
