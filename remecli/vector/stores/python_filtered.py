"""What the stores over an engine whose query language cannot say every filter (Chroma, Qdrant,
Elasticsearch) do alike: the engine narrows the rows, `matches` decides (`_matching`), and
listing, deleting (by id and by conditions), the insertion order and the one-node-per-content rule of `add`
and `update` follow from that and from `_twins` (the stored nodes with a given content)."""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable
from dataclasses import dataclass

import numpy as np

from remecli.vector.filters import Condition
from remecli.vector.node import ContentKey, MemoryNode
from remecli.vector.stores.base import DuplicateContentError, VectorStoreError
from remecli.vector.stores.in_python import Stored, ordered
from remecli.vector.values import ColumnValues, MetadataIn


@dataclass(frozen=True, slots=True)
class NewNode:
    """A node `add` writes: its vector and its insertion order."""

    node: MemoryNode
    vector: np.ndarray
    seq: int


def first_stored(
    rows: Iterable[Stored], wanted: Collection[ContentKey] | None = None
) -> dict[ContentKey, MemoryNode]:
    """The first stored node (lowest `seq`) of each content key among `rows` (of the `wanted`
    keys only, when given): the one `add` returns for a twin."""
    first: dict[ContentKey, Stored] = {}
    for row in rows:
        key = row.node.content_key
        if (wanted is None or key in wanted) and (key not in first or row.seq < first[key].seq):
            first[key] = row
    return {key: row.node for key, row in first.items()}


class PythonFilteredStore(ABC):
    """`list_nodes`, `delete_where`, `_next_seq`, and `add`'s and `update`'s content checks of
    such a store. A subclass sets `_lock` (held by every write) and gives `_matching`,
    `_row`, `_rewrite`, `_stored_ids`, `_delete_ids` and `_twins`."""

    _lock: threading.RLock
    _last_seq = 0

    @abstractmethod
    def _matching(self, conditions: list[Condition]) -> list[Stored]:
        """Every stored row that meets the conditions."""

    @abstractmethod
    def _delete_ids(self, memory_ids: list[str]) -> None:
        """Delete these stored ids from the engine."""

    @abstractmethod
    def _row(self, memory_id: str, with_vector: bool) -> tuple[Stored, list[float] | None] | None:
        """The stored row of this id (and its stored vector when asked), or None."""

    @abstractmethod
    def _rewrite(self, seq: int, node: MemoryNode, vector: list[float] | np.ndarray) -> None:
        """Write `node` again under its id, keeping its insertion order `seq`."""

    @abstractmethod
    def _stored_ids(self, memory_ids: list[str]) -> list[str]:
        """Those of these ids that are stored."""

    @abstractmethod
    def _twins(self, nodes: list[MemoryNode]) -> dict[ContentKey, MemoryNode]:
        """The first stored node of each content key of `nodes` that is stored (`first_stored`
        over the rows the engine finds by content hash)."""

    def _next_seq(self) -> int:
        """Insertion order across processes: the clock in ns, strictly increasing here."""
        self._last_seq = max(self._last_seq + 1, time.time_ns())
        return self._last_seq

    def _new_nodes(
        self, nodes: list[MemoryNode], vectors: np.ndarray
    ) -> tuple[list[tuple[MemoryNode, bool]], list[NewNode]]:
        """What `VectorStore.add` returns, and the nodes it has to write: a node whose content its
        target already holds (stored, or earlier in `nodes`) gives that node, not stored again."""
        existing = self._twins(nodes)
        results: list[tuple[MemoryNode, bool]] = []
        new: list[NewNode] = []
        for node, vector in zip(nodes, vectors, strict=True):
            key = node.content_key
            if key in existing:
                results.append((existing[key], False))
                continue
            existing[key] = node
            new.append(NewNode(node, vector, self._next_seq()))
            results.append((node, True))
        return results, new

    def _check_unique(self, node: MemoryNode) -> None:
        """Refuse an update that gives `node` the content of another node of its target."""
        clash = self._twins([node]).get(node.content_key)
        if clash is not None and clash.memory_id != node.memory_id:
            raise DuplicateContentError(clash.memory_id)

    def update(
        self,
        memory_id: str,
        fields: ColumnValues,
        metadata: MetadataIn | None,
        vector: np.ndarray | None,
    ) -> MemoryNode | None:
        """See `VectorStore.update` (the record is written again, its vector kept unless given)."""
        with self._lock:
            found = self._row(memory_id, with_vector=vector is None)
            if found is None:
                return None
            row, kept = found
            new = kept if vector is None else vector
            if new is None:
                raise VectorStoreError(
                    f"memory {memory_id} has no stored vector: run reembed() to embed it again"
                )
            row.node.apply_update(fields, metadata)
            self._check_unique(row.node)
            self._rewrite(row.seq, row.node, new)
        return row.node

    def delete(self, memory_ids: list[str]) -> int:
        """See `VectorStore.delete`."""
        with self._lock:
            found = self._stored_ids(list(memory_ids))
            self._delete_ids(found)
            return len(found)

    def delete_where(self, conditions: list[Condition]) -> int:
        """See `VectorStore.delete_where`."""
        with self._lock:
            ids = [row.node.memory_id for row in self._matching(conditions)]
            self._delete_ids(ids)
            return len(ids)

    def list_nodes(
        self,
        conditions: list[Condition],
        sort_key: str | None,
        reverse: bool,
        limit: int | None,
    ) -> list[MemoryNode]:
        """See `VectorStore.list_nodes`."""
        return ordered(self._matching(conditions), sort_key, reverse, limit)
