"""CheckedFunctionTool: a returned or yielded ToolResponse arrives as the chunk it means, and the
tool still describes itself from the function (no private FunctionTool method overridden)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

from agentscope.message import TextBlock, ToolResultState
from agentscope.tool import ToolChunk, ToolResponse

from remecli.llm.function_tool import CheckedFunctionTool


def _text(chunk: ToolChunk) -> str:
    return "".join(getattr(b, "text", "") for b in chunk.content)


class Notes:
    """A tool owner, so the tool is a bound method."""

    def lookup(self, topic: str, limit: int = 3) -> ToolResponse:
        """Look a topic up.

        Args:
            topic: What to look up.
            limit: How many hits.
        """
        return ToolResponse(content=[TextBlock(text=f"{topic}:{limit}")])


async def test_a_bound_method_keeps_its_name_description_and_schema() -> None:
    tool = CheckedFunctionTool(Notes().lookup, is_read_only=True)
    assert (tool.name, tool.description) == ("lookup", "Look a topic up.")
    assert set(tool.input_schema["properties"]) == {"topic", "limit"}
    assert tool.input_schema["required"] == ["topic"] and tool.is_read_only
    chunk = await tool(topic="tea")
    assert isinstance(chunk, ToolChunk) and _text(chunk) == "tea:3"
    assert chunk.state == ToolResultState.RUNNING  # success: the agent closes it as such


async def test_yielded_responses_become_chunks_and_plain_values_stay_text() -> None:
    async def stream(n: int) -> AsyncIterator[ToolResponse]:
        """Stream n parts.

        Args:
            n: How many.
        """
        for i in range(n):
            yield ToolResponse(content=[TextBlock(text=f"part {i}")])
        yield ToolResponse(content=[TextBlock(text="broke")], state=ToolResultState.ERROR)

    def parts() -> Iterator[str]:
        """Two plain parts."""
        yield from ("a", "b")

    chunks = [c async for c in await CheckedFunctionTool(stream)(n=2)]
    assert [(_text(c), c.state) for c in chunks] == [
        ("part 0", ToolResultState.RUNNING),
        ("part 1", ToolResultState.RUNNING),
        ("broke", ToolResultState.ERROR),
    ]
    plain = [_text(c) async for c in await CheckedFunctionTool(parts)()]
    assert plain == ["a", "b"]


async def test_an_error_never_reaches_the_model_empty() -> None:
    """Issue 37.2: a tool that ran out of memory came back as an empty error text."""

    async def huge(path: str) -> ToolChunk:
        """Read everything.

        Args:
            path: Which file.
        """
        raise MemoryError

    def silent() -> ToolChunk:
        """Fail quietly."""
        return ToolChunk(content=[TextBlock(text="")], state=ToolResultState.ERROR)

    def stream() -> Iterator[ToolChunk]:
        """Fail half-way."""
        yield ToolChunk(content=[TextBlock(text="first")], state=ToolResultState.RUNNING)
        raise OSError()

    chunk = await CheckedFunctionTool(huge)(path="app.log")
    assert chunk.state == ToolResultState.ERROR
    assert _text(chunk).startswith("`huge` ran out of memory (the file or output is too large")
    chunk = await CheckedFunctionTool(silent)()
    assert _text(chunk) == "`silent` failed without saying why; try another way."
    chunks = [c async for c in await CheckedFunctionTool(stream)()]
    assert [_text(c) for c in chunks] == ["first", "`stream` failed: OSError"]
