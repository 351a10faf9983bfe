"""agentscope's FunctionTool with argument checking: the one subclass of it in remecli."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from agentscope.message import ToolResultState
from agentscope.tool import FunctionTool, ToolChunk, ToolResponse

from remecli.llm.tool_results import error


class CheckedFunctionTool(FunctionTool):
    """A FunctionTool that refuses unknown arguments with a message naming the accepted ones,
    and accepts a returned `ToolResponse` as well as a `ToolChunk`.

    (agentscope 2.0.11's FunctionTool stringifies a returned ToolResponse into a text block.)
    """

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

    @staticmethod
    def _convert_func_result_to_chunk(result: Any) -> ToolChunk:
        if isinstance(result, ToolResponse):
            state = ToolResultState.RUNNING
            if result.state != ToolResultState.SUCCESS:
                state = result.state
            return ToolChunk(content=result.content, state=state, metadata=result.metadata)
        return FunctionTool._convert_func_result_to_chunk(result)
