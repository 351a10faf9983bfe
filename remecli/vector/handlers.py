"""`MemoryHandler` (the reference's): the memories of one target, through the ReMe they belong to.

handler = reme.get_memory_handler("alice")      # a target named before (user_name=…)
node = await handler.add("Alice likes tea", project="home")
await handler.list(limit=10)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from remecli.vector.node import PERSONAL, PROCEDURAL, TOOL, MemoryNode
from remecli.vector.values import JSON, Filters, MetadataIn, TimeValue

if TYPE_CHECKING:
    from remecli.vector.reme import ReMe

_KINDS = (PERSONAL, PROCEDURAL, TOOL)  # the order of user_name, task_name, tool_name


class MemoryHandler:
    """Add, get, update, delete, list and search the memories of one target."""

    def __init__(self, reme: ReMe, memory_target: str, memory_type: str) -> None:
        if memory_type not in _KINDS:
            raise ValueError(f"no memory handler for {memory_type} memory")
        self.reme = reme
        self.memory_target = memory_target
        self.memory_type = memory_type
        # (user_name, task_name, tool_name) of this target: its name in its kind's place
        user, task, tool = (memory_target if kind == memory_type else "" for kind in _KINDS)
        self._who = (user, task, tool)

    async def add(
        self,
        content: str,
        when_to_use: str = "",
        message_time: TimeValue = "",
        ref_memory_id: str = "",
        author: str = "",
        score: float = 0.0,
        metadata: MetadataIn | None = None,
        **extra: JSON,
    ) -> MemoryNode:
        """Add one memory (other keywords = metadata)."""
        return await self.reme.add_memory(
            content,
            *self._who,
            when_to_use=when_to_use,
            message_time=message_time,
            ref_memory_id=ref_memory_id,
            author=author,
            score=score,
            metadata={**(metadata or {}), **extra},
        )

    async def add_batch(self, memories: Sequence[Mapping[str, Any]]) -> list[MemoryNode]:
        """Add many (`content` and the fields of `add` each; extra keys under `metadata`)."""
        added = []
        for memory in memories:
            fields = {k: v for k, v in memory.items() if k not in ("content", "memory_id")}
            fields.update(fields.pop("metadata", None) or {})
            added.append(await self.add(str(memory.get("content", "")), **fields))
        return added

    async def get(self, memory_ids: str | list[str]) -> MemoryNode | list[MemoryNode]:
        """One node (raises MemoryNotFoundError) or the found nodes of a list."""
        if isinstance(memory_ids, str):
            node = await self.reme.get_memory(memory_ids)
            assert node is not None
            return node
        found = [await self.reme.get_memory(i, missing_ok=True) for i in memory_ids]
        return [node for node in found if node is not None]

    async def delete(self, memory_ids: str | list[str]) -> int:
        """Delete by id; how many were deleted."""
        return await self.reme.delete_memory(memory_ids)

    async def delete_all(self) -> int:
        """Delete every memory of this target."""
        return await self.reme.delete_all(*self._who)

    async def update(
        self,
        memory_id: str,
        content: str | None = None,
        when_to_use: str | None = None,
        message_time: TimeValue = None,
        ref_memory_id: str | None = None,
        author: str | None = None,
        score: float | None = None,
        metadata: MetadataIn | None = None,
        **extra: JSON,
    ) -> MemoryNode:
        """Change a memory of this target (the fields of `add`; other keywords = metadata)."""
        return await self.reme.update_memory(
            memory_id,
            *self._who,
            memory_content=content,
            when_to_use=when_to_use,
            message_time=message_time,
            ref_memory_id=ref_memory_id,
            author=author,
            score=score,
            metadata={**(metadata or {}), **extra},
        )

    async def update_batch(self, updates: Sequence[Mapping[str, Any]]) -> list[MemoryNode]:
        """Apply many updates (`memory_id` and the fields of `update` each)."""
        changed = []
        for update in updates:
            fields = {k: v for k, v in update.items() if k not in ("memory_id", "content")}
            fields.update(fields.pop("metadata", None) or {})
            changed.append(await self.update(update["memory_id"], update.get("content"), **fields))
        return changed

    async def search(
        self, query: str | list[str], limit: int = 5, filters: Filters | None = None
    ) -> list[MemoryNode]:
        """Memories of this target nearest to the query (or to any of several), best first."""
        seen: dict[str, MemoryNode] = {}
        for text in [query] if isinstance(query, str) else query:
            found = await self.reme.retrieve(
                text, *self._who, top_k=limit, filters=filters, enable_time_filter=False
            )
            for node in found.nodes:
                seen.setdefault(node.memory_id, node)
        return list(seen.values())

    async def list(
        self,
        filters: Filters | None = None,
        limit: int | None = None,
        sort_key: str | None = None,
        reverse: bool = True,
    ) -> list[MemoryNode]:
        """The memories of this target, filtered and sorted."""
        return await self.reme.list_memory(
            *self._who, filters=filters, limit=limit, sort_key=sort_key, reverse=reverse
        )
