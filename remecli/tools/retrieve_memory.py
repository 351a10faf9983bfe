"""The agent's `retrieve_memory` tool: personal, task and tool memories from the vector memory
(offered when `memory.vector.enabled` is set)."""

from __future__ import annotations

import json
from typing import Any, Protocol

from agentscope.message import TextBlock, ToolResultState
from agentscope.tool import ToolChunk

from remecli.llm.tool_results import error
from remecli.ops.context import JobContext

DESCRIPTION = (
    "Retrieve what is known about the user (preferences, facts), how tasks were done, and how "
    "tools behaved, from the vector memory. Returns a JSON list of memories with type, target, "
    "content, times and score. Prefer memory_search for what was written in notes."
)
MAX_TOP_K = 20


class VectorHost(Protocol):
    """What the tool needs of the memory runtime."""

    async def retrieve_vector_memory(self, query: str, top_k: int = 5) -> list[dict[str, Any]]:
        """Memories relevant to `query`, best first."""
        ...


def enabled(memory: Any) -> bool:
    """Offered only when the runtime's vector memory is on."""
    return bool(getattr(getattr(memory, "vector", None), "enabled", False))


async def retrieve_memory(ops: JobContext, query: str, top_k: int = 5) -> ToolChunk:
    """Retrieve personal, task and tool memories.

    Args:
        query: What to look for.
        top_k: How many memories to return (1-20).
    """
    try:
        count = min(max(int(float(top_k)), 1), MAX_TOP_K)
    except (TypeError, ValueError):
        count = 5
    try:
        memory: VectorHost = ops.memory
        nodes = await memory.retrieve_vector_memory(str(query), count)
    except Exception as exc:  # noqa: BLE001 - the model gets a message it can act on
        return error(f"retrieve_memory failed ({exc}); use memory_search instead.")
    text = json.dumps(nodes, ensure_ascii=False, default=str)
    return ToolChunk(content=[TextBlock(type="text", text=text)], state=ToolResultState.SUCCESS)
