"""The agent's `retrieve_memory` tool: personal, task and tool memories from the vector memory
(offered when `memory.vector.enabled` is set), through the `memory_vector_retrieve` operation."""

from __future__ import annotations

import json
from typing import Any

from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import error, ok
from remecli.ops.context import JobContext
from remecli.ops.vector_ops import RetrieveParams, memory_vector_retrieve

DESCRIPTION = (
    "Retrieve what is known about the user (preferences, facts), how tasks were done, and how "
    "tools behaved, from the vector memory. Returns a JSON list of memories with type, target, "
    "content, times and score. Prefer memory_search for what was written in notes."
)
MAX_TOP_K = 20


def enabled(memory: Any) -> bool:
    """Offered only when the runtime's vector memory is on."""
    return bool(getattr(getattr(memory, "vector", None), "enabled", False))


async def retrieve_memory(ops: JobContext, query: str, top_k: int = 5) -> ToolOutput:
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
        found = await memory_vector_retrieve(
            ops, RetrieveParams.model_validate({"query": str(query), "top_k": count})
        )
    except Exception as exc:  # noqa: BLE001 - the model gets a message it can act on
        return error(f"retrieve_memory failed ({exc}); use memory_search instead.")
    nodes = [node.model_dump(mode="json", exclude_none=True) for node in found.memories]
    text = json.dumps(nodes, ensure_ascii=False, default=str)
    return ok(text)
