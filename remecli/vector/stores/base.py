"""The one contract every vector store backend meets (blocking and thread-safe; the ReMe facade
calls it off the event loop). Vectors are L2-normalized float32, so inner product = cosine."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from remecli.vector.filters import Condition
from remecli.vector.node import MemoryNode
from remecli.vector.values import ColumnValues, MetadataIn


class VectorStoreError(RuntimeError):
    """A store failure the user can act on (the message says what to do)."""


class DuplicateContentError(ValueError):
    """An update would give a node the same content as another node of the same target."""

    def __init__(self, existing_id: str) -> None:
        super().__init__(f"memory {existing_id} of this target already has that content")
        self.existing_id = existing_id


class VectorStore(Protocol):
    """Records + vectors of memory nodes."""

    dimensions: int

    def add(self, nodes: list[MemoryNode], vectors: np.ndarray) -> list[tuple[MemoryNode, bool]]:
        """Store nodes (one vector row each); a node whose content hash already exists for its
        (memory_type, memory_target) is not stored again: (existing node, False) is returned."""
        ...

    def get(self, memory_id: str) -> MemoryNode | None:
        """The node with this id, or None."""
        ...

    def vector_of(self, memory_id: str) -> list[float] | None:
        """The stored vector of this id (unit length), or None."""
        ...

    def update(
        self,
        memory_id: str,
        fields: ColumnValues,
        metadata: MetadataIn | None,
        vector: np.ndarray | None,
    ) -> MemoryNode | None:
        """Atomically set column `fields`, merge `metadata` (a None value removes a key) and
        replace the vector; None if the id is unknown. Raises DuplicateContentError."""
        ...

    def delete(self, memory_ids: list[str]) -> int:
        """Delete these ids; the number deleted."""
        ...

    def delete_where(self, conditions: list[Condition]) -> int:
        """Delete every node matching the conditions (all nodes when empty)."""
        ...

    def list_nodes(
        self,
        conditions: list[Condition],
        sort_key: str | None,
        reverse: bool,
        limit: int | None,
    ) -> list[MemoryNode]:
        """Matching nodes sorted by `sort_key` (missing values last, ties by insertion order)."""
        ...

    def count(self, conditions: list[Condition]) -> int:
        """How many nodes match."""
        ...

    def vector_search(
        self, vector: np.ndarray, conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """The `limit` matching nodes most similar to `vector`, `score` set (cosine), best first."""
        ...

    def keyword_search(
        self, terms: list[str], conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """Matching nodes containing any of the analyzed `terms`, `score` set, best first."""
        ...

    def close(self) -> None:
        """Release files and connections."""
        ...


def check_dimensions(stored: int | None, wanted: int, where: str) -> None:
    """Refuse to mix vectors of different sizes in one store."""
    if stored is not None and stored != wanted:
        raise VectorStoreError(
            f"the memories in {where} were embedded with {stored}-d vectors but the embedding "
            f"model gives {wanted}-d: use the same embedding model and dimensions, or another "
            "working_dir / table"
        )
