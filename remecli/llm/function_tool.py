"""agentscope's FunctionTool with argument checking: the one subclass of it in remecli, and
the one place a tool's `ToolOutput` becomes agentscope's `ToolChunk` (`to_chunk`)."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from dataclasses import replace
from typing import Any

from agentscope.message import Base64Source, DataBlock, TextBlock, ToolResultState
from agentscope.tool import FunctionTool, ToolChunk, ToolResponse

from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import error

log = logging.getLogger(__name__)


class CheckedFunctionTool(FunctionTool):
    """A FunctionTool that refuses unknown arguments with a message naming the accepted ones,
    and runs a function returning (or yielding) remecli's `ToolOutput` — or, from code written
    for agentscope, a `ToolResponse` or `ToolChunk`. It is the one place every tool result
    passes: an error never reaches the model empty (an exception without a message, e.g.
    MemoryError, became an empty text in agentscope).

    agentscope 2.0.11's FunctionTool stringifies anything but a ToolChunk into a text block,
    so the function is wrapped to hand back chunks (`as_chunk`); the tool's name, description
    and input schema still come from the function itself.
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
            _returning_chunks(func, f"`{described.name}`"),
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
            return to_chunk(
                error(
                    f"Unknown argument(s) {names} for {self.name}; it accepts: "
                    f"{', '.join(accepted) or 'no arguments'}."
                )
            )
        return await super().call(**kwargs)


# A piece that succeeded is sent as RUNNING: agentscope closes the call as a success.
_STATES: dict[str, ToolResultState] = {
    "success": ToolResultState.RUNNING,
    "running": ToolResultState.RUNNING,
    "error": ToolResultState.ERROR,
    "interrupted": ToolResultState.INTERRUPTED,
    "denied": ToolResultState.DENIED,
}


def to_chunk(output: ToolOutput) -> ToolChunk:
    """agentscope's `ToolChunk` saying what `output` says: its text, then its images."""
    content: list[TextBlock | DataBlock] = [TextBlock(text=output.text)]
    content += [
        DataBlock(
            source=Base64Source(data=image.data, media_type=image.media_type), name=image.name
        )
        for image in output.attachments
    ]
    return ToolChunk(content=content, state=_STATES[output.state], metadata=dict(output.metadata))


def as_chunk(result: Any, name: str = "the tool") -> Any:
    """A `ToolOutput` or `ToolResponse` as the `ToolChunk` that says the same; an error with
    no text gets one; anything else unchanged."""
    if isinstance(result, ToolOutput):
        if result.is_error and not result.text.strip():
            why = f"{name} failed without saying why; try another way."
            result = replace(result, text=why + result.text)
        return to_chunk(result)
    if isinstance(result, ToolResponse):
        state = ToolResultState.RUNNING
        if result.state != ToolResultState.SUCCESS:
            state = result.state
        result = ToolChunk(content=result.content, state=state, metadata=result.metadata)
    if isinstance(result, ToolChunk) and result.state == ToolResultState.ERROR:
        texts = [getattr(block, "text", "") for block in result.content or []]
        if not any(str(text).strip() for text in texts):
            said = to_chunk(error(f"{name} failed without saying why; try another way.")).content
            result = ToolChunk(
                content=[*said, *(result.content or [])],
                state=result.state,
                metadata=result.metadata,
            )
    return result


def failure(exc: BaseException, name: str) -> ToolOutput:
    """The error result of a tool that raised: never empty (MemoryError has no message)."""
    log.warning("tool %s raised", name, exc_info=exc)
    if isinstance(exc, MemoryError):
        return error(
            f"{name} ran out of memory (the file or output is too large to handle at once); "
            "work on a smaller part, e.g. with `bash` (head, tail, sed, grep)."
        )
    said = str(exc).strip()
    return error(f"{name} failed: {type(exc).__name__}{': ' + said if said else ''}")


def _returning_chunks(func: Callable[..., Any], name: str) -> Callable[..., Any]:
    """`func` (the tool `name`) with every `ToolOutput` or `ToolResponse` it returns or yields
    turned into a `ToolChunk`, and an exception it raises into an error chunk that says what
    happened."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            result = func(*args, **kwargs)
        except Exception as exc:
            return as_chunk(failure(exc, name))
        if inspect.isawaitable(result):
            return _awaited_chunk(result, name)
        if isinstance(result, AsyncGenerator):
            return _async_chunks(result, name)
        if isinstance(result, Generator):
            return _chunks(result, name)
        return as_chunk(result, name)

    return wrapper


async def _awaited_chunk(result: Any, name: str) -> Any:
    try:
        value = await result
    except Exception as exc:
        return as_chunk(failure(exc, name))
    if isinstance(value, AsyncGenerator):
        return _async_chunks(value, name)
    return as_chunk(value, name)


async def _async_chunks(results: AsyncIterator[Any], name: str) -> AsyncIterator[Any]:
    try:
        async for item in results:
            yield as_chunk(item, name)
    except Exception as exc:
        yield as_chunk(failure(exc, name))


def _chunks(results: Iterator[Any], name: str) -> Iterator[Any]:
    try:
        for item in results:
            yield as_chunk(item, name)
    except Exception as exc:
        yield as_chunk(failure(exc, name))
