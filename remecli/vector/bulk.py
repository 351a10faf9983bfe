"""Many memories at once: `ReMe.add_memories` (an import) and `ReMe.reembed` (after the embedding
model changed). Texts are embedded in batches and written through each store's bulk path (binary
COPY for PostgreSQL, batched `add` for Chroma, one transaction for SQLite); a large load into
pgvector builds its HNSW index once at the end. Secrets are redacted before anything is embedded
or stored, as on every other write path."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from remecli.vector.node import MemoryNode
from remecli.vector.redaction import redact_node
from remecli.vector.targets import Names, scopes
from remecli.vector.values import JSON

if TYPE_CHECKING:
    from remecli.vector.base import VectorMemoryBase
    from remecli.vector.stores import VectorStore

log = logging.getLogger(__name__)

EMBED_BATCH = 256  # texts per embedding call
STORE_BATCH = 5_000  # nodes per store write
# Keys of a record that are fields of the node; any other key is kept as metadata (as
# add_memory keeps extra keywords). `vector` and `action` of an exported node are not read.
_FIELDS = (
    "memory_id",
    "when_to_use",
    "message_time",
    "ref_memory_id",
    "author",
    "score",
    "time_created",
    "time_modified",
)
_SCOPE_KEYS = ("user_name", "task_name", "tool_name", "memory_type", "memory_target")
_IGNORED = ("vector", "action", "content", "memory_content", "metadata", *_SCOPE_KEYS)

Progress = Callable[[int, int], None]
T = TypeVar("T")


def _names(record: Mapping[str, JSON], key: str) -> Names:
    value = record.get(key)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return [str(name) for name in value]
    raise ValueError(f"{key} must be text or a list of text, not {value!r}")


def record_node(
    record: Mapping[str, JSON] | MemoryNode, scope: list[tuple[str, str]]
) -> MemoryNode:
    """The node of one record: `content` (or `memory_content`), whose memory it is (user_name /
    task_name / tool_name, or memory_type + memory_target as exported; else `scope`), the fields
    of `add_memory`, and `metadata` (other keys join it)."""
    if isinstance(record, MemoryNode):
        return record
    if not isinstance(record, dict):
        raise ValueError(f"a memory is a JSON object, not {type(record).__name__}")
    content = str(record.get("content") or record.get("memory_content") or "").strip()
    if not content:
        raise ValueError("a memory needs a non-empty content")
    pairs = scopes(*(_names(record, key) for key in ("user_name", "task_name", "tool_name")))
    if not pairs and record.get("memory_type") and record.get("memory_target"):
        pairs = [(str(record["memory_type"]), str(record["memory_target"]))]
    pairs = pairs or scope
    if len(pairs) != 1:
        raise ValueError(
            "a memory needs exactly one of user_name, task_name, tool_name (or memory_type and "
            "memory_target), in the record or for the whole import"
        )
    metadata = record.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ValueError("metadata must be a JSON object")
    extra = {k: v for k, v in record.items() if k not in _FIELDS and k not in _IGNORED}
    # (checked by MemoryNode: text, times and a number as the record gives them)
    fields: dict[str, Any] = {k: record[k] for k in _FIELDS if record.get(k) not in (None, "")}
    return MemoryNode(
        memory_type=pairs[0][0],
        memory_target=pairs[0][1],
        content=content,
        metadata={**metadata, **extra},
        **fields,
    )


def build_nodes(
    records: Iterable[Mapping[str, JSON] | MemoryNode],
    user_name: Names,
    task_name: Names,
    tool_name: Names,
) -> list[MemoryNode]:
    """Nodes of `records`; an invalid record raises ValueError naming its position (1-based)."""
    scope = scopes(user_name, task_name, tool_name)
    if len(scope) > 1:
        raise ValueError("add_memories takes at most one of user_name, task_name, tool_name")
    nodes = []
    for position, record in enumerate(records, start=1):
        try:
            nodes.append(record_node(record, scope))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"memory {position}: {exc}") from None
    return nodes


def _batches(items: list[T], size: int) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def deferred_index(store: VectorStore, incoming: int) -> AbstractContextManager[bool]:
    """The store's way to keep its ANN index out of a large load (pgvector), else nothing."""
    defer = getattr(store, "defer_index", None)
    return defer(incoming) if defer is not None else nullcontext(False)


async def _embed(reme: VectorMemoryBase, nodes: list[MemoryNode], batch: int) -> np.ndarray:
    parts = [
        await reme.embed_documents([n.embedding_text() for n in part])
        for part in _batches(nodes, batch)
    ]
    return np.concatenate(parts) if parts else np.zeros((0, reme.store.dimensions), np.float32)


async def add_memories(
    reme: VectorMemoryBase,
    nodes: list[MemoryNode],
    *,
    embed_batch: int = EMBED_BATCH,
    store_batch: int = STORE_BATCH,
    progress: Progress | None = None,
) -> list[tuple[MemoryNode, bool]]:
    """Redact, embed (in batches) and store `nodes` through the store's bulk path; (the node
    stored, whether it is new) for each, in order. The next batch is embedded while the store
    writes this one."""
    await reme.start()
    if reme.redact_secrets:
        for node in nodes:
            redact_node(node)
    store = reme.store
    results: list[tuple[MemoryNode, bool]] = []
    context = deferred_index(store, len(nodes))
    await asyncio.to_thread(context.__enter__)
    try:
        parts = list(_batches(nodes, store_batch))
        pending = asyncio.ensure_future(_embed(reme, parts[0], embed_batch)) if parts else None
        for index, part in enumerate(parts):
            assert pending is not None
            vectors = await pending
            if index + 1 < len(parts):
                pending = asyncio.ensure_future(_embed(reme, parts[index + 1], embed_batch))
            results += await asyncio.to_thread(store.add, part, vectors)
            if progress is not None:
                progress(len(results), len(nodes))
    finally:
        await asyncio.to_thread(context.__exit__, None, None, None)
    return results


async def reembed(
    reme: VectorMemoryBase,
    *,
    embed_batch: int = EMBED_BATCH,
    store_batch: int = STORE_BATCH,
    progress: Progress | None = None,
) -> int:
    """Embed every stored memory again with the current embedding model and replace its vector
    (ids, texts and times stay); the ANN index is rebuilt once at the end. How many."""
    await reme.start()
    store = reme.store
    nodes = await asyncio.to_thread(store.list_nodes, [], None, False, None)
    replace = getattr(store, "replace_vectors", None)
    context = deferred_index(store, len(nodes))
    await asyncio.to_thread(context.__enter__)
    done = 0
    try:
        for part in _batches(nodes, store_batch):
            vectors = await _embed(reme, part, embed_batch)
            if replace is not None:
                await asyncio.to_thread(replace, [n.memory_id for n in part], vectors)
            else:
                for node, vector in zip(part, vectors, strict=True):
                    await asyncio.to_thread(store.update, node.memory_id, {}, None, vector)
            done += len(part)
            if progress is not None:
                progress(done, len(nodes))
    finally:
        await asyncio.to_thread(context.__exit__, None, None, None)
    return done
