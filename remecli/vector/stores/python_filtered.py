"""What the stores over an engine whose query language cannot say every filter (Chroma, Qdrant,
Elasticsearch) do alike: the engine narrows the rows, `matches` decides (`_matching`), and
listing, deleting by conditions and the insertion order follow from that."""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod

from remecli.vector.filters import Condition
from remecli.vector.node import MemoryNode
from remecli.vector.stores.in_python import Stored, ordered


class PythonFilteredStore(ABC):
    """`list_nodes`, `delete_where` and `_next_seq` of such a store. A subclass sets `_lock`
    (held by every write) and gives `_matching` and `_delete_ids`."""

    _lock: threading.RLock
    _last_seq = 0

    @abstractmethod
    def _matching(self, conditions: list[Condition]) -> list[Stored]:
        """Every stored row that meets the conditions."""

    @abstractmethod
    def _delete_ids(self, memory_ids: list[str]) -> None:
        """Delete these stored ids from the engine."""

    def _next_seq(self) -> int:
        """Insertion order across processes: the clock in ns, strictly increasing here."""
        self._last_seq = max(self._last_seq + 1, time.time_ns())
        return self._last_seq

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
