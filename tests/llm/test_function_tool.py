"""CheckedFunctionTool: a returned or yielded `ToolOutput` (or ToolResponse) arrives as the chunk
it means, and the tool still describes itself from the function (no private FunctionTool method
overridden)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

from agentscope.message import DataBlock, TextBlock, ToolResultState
from agentscope.tool import ToolChunk, ToolResponse

from remecli.llm.function_tool import CheckedFunctionTool
from remecli.llm.message import Attachment, ToolOutput


def _text(chunk: ToolChunk | ToolResponse) -> str:
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


async def test_a_tool_output_becomes_the_chunk_that_says_the_same() -> None:
    """The seam: remecli's `ToolOutput` (text, images, state, metadata) as agentscope's chunk."""

    def look(path: str) -> ToolOutput:
        """Look at a picture.

        Args:
            path: Which picture.
        """
        picture = Attachment("image/png", "aGk=", path)
        return ToolOutput("a picture", attachments=(picture,), metadata={"path": path})

    def refuse(path: str) -> ToolOutput:
        """Refuse.

        Args:
            path: Which file.
        """
        return ToolOutput(f"no {path}", "error", metadata={"path": path})

    chunk = await CheckedFunctionTool(look)(path="a.png")
    text, image = chunk.content
    assert isinstance(text, TextBlock) and text.text == "a picture"
    assert isinstance(image, DataBlock) and image.name == "a.png"
    assert (image.source.media_type, image.source.data) == ("image/png", "aGk=")
    assert chunk.state == ToolResultState.RUNNING and chunk.metadata == {"path": "a.png"}
    chunk = await CheckedFunctionTool(refuse)(path="b.md")
    assert (_text(chunk), chunk.state) == ("no b.md", ToolResultState.ERROR)
    assert chunk.metadata == {"path": "b.md"}


async def test_streamed_outputs_accumulate_into_one_result() -> None:
    """Pieces a tool yields arrive one chunk each and add up to the whole text, as before."""

    async def count(n: int) -> AsyncIterator[ToolOutput]:
        """Count.

        Args:
            n: How far.
        """
        for i in range(n):
            yield ToolOutput(f"{i}\n", metadata={"last": i})
        yield ToolOutput("", "error")

    chunks = [c async for c in await CheckedFunctionTool(count)(n=3)]
    assert [_text(c) for c in chunks][:3] == ["0\n", "1\n", "2\n"]
    response = ToolResponse(content=[])
    for chunk in chunks:
        response.append_chunk(chunk)
    assert _text(response).startswith("0\n1\n2\n`count` failed without saying why")
    assert response.state == ToolResultState.ERROR and response.metadata == {"last": 2}


async def test_a_returned_error_response_stays_an_error_and_unknown_arguments_are_refused() -> None:
    async def failing(x: int) -> ToolResponse:
        """Fail.

        Args:
            x: A number.
        """
        return ToolResponse(content=[TextBlock(text=f"bad {x}")], state=ToolResultState.ERROR)

    chunk = await CheckedFunctionTool(failing)(x=3)
    assert _text(chunk) == "bad 3" and chunk.state == ToolResultState.ERROR
    chunk = await CheckedFunctionTool(failing)(x=3, y=4)
    assert "Unknown argument(s) `y`" in _text(chunk) and chunk.state == ToolResultState.ERROR
