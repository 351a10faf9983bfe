"""The Qdrant store (the official `qdrant-client`): a client of a Qdrant server, or the client's
local mode (a folder, in this process; see `qdrant_client_pool`).

One collection per store, cosine distance. A point's id is a UUID derived from the memory id
(Qdrant takes only UUIDs and integers); its payload holds the node's columns, its metadata as
JSON text (metadata keys may hold `.` or `[`, which Qdrant reads as paths) and its analyzed
keyword terms. Each point also has a sparse vector `terms` (a term's hash -> its BM25 term
weight, with Qdrant's IDF modifier), so keyword search is scored by Qdrant: BM25 with k1 1.2,
b 0.75 over an assumed 16-term average length. Qdrant narrows by target and content hash; the
contract's other filters and sort order are decided in Python (`in_python`), so the meaning is
the same as in the SQL stores. New memories go in with one batch upsert per 512.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import numpy as np

from remecli.vector.filters import Condition, target_of
from remecli.vector.node import COLUMNS, ContentKey, MemoryNode
from remecli.vector.stores.base import VectorStoreError, check_dimensions
from remecli.vector.stores.in_python import EngineHits, Stored, matches, widening_search
from remecli.vector.stores.python_filtered import PythonFilteredStore, first_stored
from remecli.vector.stores.qdrant_client_pool import QdrantConnection, first_line, release
from remecli.vector.stores.qdrant_points import PointId, point_id, term_index, term_weights
from remecli.vector.terms import document_terms
from remecli.vector.values import JSON, JSONObject

if TYPE_CHECKING:
    from qdrant_client import models as qmodels

P = ParamSpec("P")
T = TypeVar("T")

_BATCH = 512
_PAGE = 1024
_KEYWORD_FIELDS = ("memory_type", "memory_target", "content_hash")
_TERMS = "terms"  # the sparse vector of keyword terms
_DENSE = ""  # the unnamed dense vector


class QdrantVectorStore(PythonFilteredStore):
    """See the module docstring."""

    def __init__(
        self,
        connection: QdrantConnection,
        collection: str,
        dimensions: int,
        on_disk: bool = False,
    ) -> None:
        from qdrant_client import models

        self.dimensions = dimensions
        self._models = models
        self._connection = connection
        self._lock = connection.lock
        self._client = connection.client
        self._collection = collection
        self._closed = False
        if not self._call("open the collection", self._client.collection_exists, collection):
            self._call(
                "create the collection",
                self._client.create_collection,
                collection,
                vectors_config=models.VectorParams(
                    size=dimensions, distance=models.Distance.COSINE, on_disk=on_disk
                ),
                sparse_vectors_config={
                    _TERMS: models.SparseVectorParams(modifier=models.Modifier.IDF)
                },
            )
            if not connection.key:  # a server indexes payload keys; the local mode has no use
                for name in _KEYWORD_FIELDS:
                    self._call(
                        "index the collection",
                        self._client.create_payload_index,
                        collection,
                        field_name=name,
                        field_schema=models.PayloadSchemaType.KEYWORD,
                    )
        info = self._call("open the collection", self._client.get_collection, collection)
        vectors = info.config.params.vectors
        stored = getattr(vectors, "size", None)
        check_dimensions(int(stored) if stored else None, dimensions, f"Qdrant {collection}")

    # -- engine calls ------------------------------------------------------------------------
    def _call(self, what: str, method: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        with self._lock:
            try:
                return method(*args, **kwargs)
            except VectorStoreError:
                raise
            except Exception as exc:  # noqa: BLE001 - a lost server or a damaged folder
                raise VectorStoreError(
                    f"Qdrant failed to {what} ({first_line(exc)}); check that the Qdrant "
                    "server runs or that the store folder is readable"
                ) from None

    def _filter(self, conditions: list[Condition]) -> qmodels.Filter | None:
        """What Qdrant narrows by: the target's type and name."""
        models = self._models
        memory_type, target = target_of(conditions)
        must: list[qmodels.Condition] = [
            models.FieldCondition(key=key, match=models.MatchValue(value=value))
            for key, value in (("memory_type", memory_type), ("memory_target", target))
            if value
        ]
        return models.Filter(must=must) if must else None

    def _scroll(self, query_filter: qmodels.Filter | None) -> list[Stored]:
        rows: list[Stored] = []
        offset = None
        while True:
            points, offset = self._call(
                "list memories",
                self._client.scroll,
                self._collection,
                scroll_filter=query_filter,
                limit=_PAGE,
                offset=offset,
                with_payload=True,
            )
            rows.extend(self._stored(point.payload) for point in points)
            if offset is None:
                return rows

    def _retrieve(self, memory_ids: list[str], vectors: bool = False) -> list[qmodels.Record]:
        return self._call(
            "read memories",
            self._client.retrieve,
            self._collection,
            ids=[point_id(memory_id) for memory_id in memory_ids],
            with_payload=True,
            with_vectors=[_DENSE] if vectors else False,
        )

    # -- records -----------------------------------------------------------------------------
    @staticmethod
    def _payload(node: MemoryNode, seq: int) -> tuple[JSONObject, list[str]]:
        """A node's payload, and its keyword terms (which the payload holds too)."""
        fields = node.stored_fields()
        payload: JSONObject = {k: fields[k] for k in COLUMNS if fields[k] is not None}
        terms = document_terms(node.embedding_text())
        payload["seq"] = seq
        payload["metadata_json"] = json.dumps(node.stored_metadata(), ensure_ascii=False)
        payload["terms"] = list[JSON](terms)
        return payload, terms

    @staticmethod
    def _stored(payload: dict[str, object] | None) -> Stored:
        record = dict(payload or {})
        metadata = json.loads(str(record.pop("metadata_json", None) or "{}"))
        kept = record.pop("terms", None)
        terms = [str(term) for term in kept] if isinstance(kept, list) else []
        seq = int(str(record.pop("seq", 0)))
        return Stored(seq, MemoryNode.from_row(record, metadata), terms)

    def _twins(self, nodes: list[MemoryNode]) -> dict[ContentKey, MemoryNode]:
        """See `PythonFilteredStore._twins` (one scroll by content hash)."""
        if not nodes:
            return {}
        models = self._models
        digests = sorted({node.content_hash for node in nodes})
        rows = self._scroll(
            models.Filter(
                must=[models.FieldCondition(key="content_hash", match=models.MatchAny(any=digests))]
            )
        )
        return first_stored(rows)

    # -- the contract ------------------------------------------------------------------------
    def add(self, nodes: list[MemoryNode], vectors: np.ndarray) -> list[tuple[MemoryNode, bool]]:
        """See `VectorStore.add` (one lookup of the content hashes, then batch upserts)."""
        ids: list[PointId] = []
        payloads: list[JSONObject] = []
        sparse: list[qmodels.Vector] = []
        rows: list[qmodels.Vector] = []  # dense vectors
        with self._lock:
            results, new = self._new_nodes(nodes, vectors)
            for item in new:
                ids.append(point_id(item.node.memory_id))
                payload, terms = self._payload(item.node, item.seq)
                payloads.append(payload)
                sparse.append(self._sparse(terms))
                rows.append(np.asarray(item.vector, dtype=np.float32).tolist())
            for start in range(0, len(ids), _BATCH):
                end = start + _BATCH
                batch = self._models.Batch(
                    ids=ids[start:end],
                    vectors={_DENSE: rows[start:end], _TERMS: sparse[start:end]},
                    payloads=payloads[start:end],
                )
                self._call(
                    "store memories",
                    self._client.upsert,
                    self._collection,
                    points=batch,
                    wait=True,
                )
        return results

    def _sparse(self, terms: list[str]) -> qmodels.SparseVector:
        weights = term_weights(terms)
        return self._models.SparseVector(
            indices=list(weights), values=[float(v) for v in weights.values()]
        )

    @staticmethod
    def _dense(point: qmodels.Record) -> list[float] | None:
        vector = point.vector
        dense = vector.get(_DENSE) if isinstance(vector, dict) else vector
        if not isinstance(dense, list):
            return None
        return [float(x) for x in dense if isinstance(x, int | float)]  # one dense vector a point

    def get(self, memory_id: str) -> MemoryNode | None:
        """See `VectorStore.get`."""
        found = self._retrieve([memory_id])
        return self._stored(found[0].payload).node if found else None

    def vector_of(self, memory_id: str) -> list[float] | None:
        """See `VectorStore.vector_of`."""
        found = self._retrieve([memory_id], vectors=True)
        return self._dense(found[0]) if found else None

    def _row(self, memory_id: str, with_vector: bool) -> tuple[Stored, list[float] | None] | None:
        found = self._retrieve([memory_id], vectors=with_vector)
        if not found:
            return None
        return self._stored(found[0].payload), self._dense(found[0]) if with_vector else None

    def _rewrite(self, seq: int, node: MemoryNode, vector: list[float] | np.ndarray) -> None:
        """The point is replaced: payload and vectors."""
        payload, terms = self._payload(node, seq)
        point = self._models.PointStruct(
            id=point_id(node.memory_id),
            vector={
                _DENSE: np.asarray(vector, dtype=np.float32).tolist(),
                _TERMS: self._sparse(terms),
            },
            payload=payload,
        )
        self._call(
            "update a memory", self._client.upsert, self._collection, points=[point], wait=True
        )

    def _delete_ids(self, memory_ids: list[str]) -> None:
        for start in range(0, len(memory_ids), _PAGE):
            part: list[PointId] = [point_id(m) for m in memory_ids[start : start + _PAGE]]
            self._call(
                "delete memories",
                self._client.delete,
                self._collection,
                points_selector=self._models.PointIdsList(points=part),
                wait=True,
            )

    def _stored_ids(self, memory_ids: list[str]) -> list[str]:
        return [self._stored(point.payload).node.memory_id for point in self._retrieve(memory_ids)]

    def _matching(self, conditions: list[Condition]) -> list[Stored]:
        rows = self._scroll(self._filter(conditions))
        return [row for row in rows if matches(row.node, conditions)]

    def _total(self) -> int:
        counted = self._call("count memories", self._client.count, self._collection, exact=True)
        return int(counted.count)

    def count(self, conditions: list[Condition]) -> int:
        """See `VectorStore.count`."""
        return self._total() if not conditions else len(self._matching(conditions))

    def vector_search(
        self, vector: np.ndarray, conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """See `VectorStore.vector_search` (Qdrant's index; asks for more while filters the
        engine cannot apply leave fewer than `limit`)."""
        if limit <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32).tolist()

        def fetch(wanted: int) -> EngineHits:
            found = self._points(query, None, conditions, wanted)
            return len(found), [(self._stored(p.payload).node, float(p.score)) for p in found]

        return widening_search(limit, self._total(), conditions, fetch)

    def keyword_search(
        self, terms: list[str], conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """See `VectorStore.keyword_search` (Qdrant scores the sparse term vectors: BM25; asks
        for more while filters it cannot apply leave fewer than `limit`)."""
        if not terms or limit <= 0:
            return []
        wanted_terms = set(terms)
        indices = sorted({term_index(term) for term in wanted_terms})
        query = self._models.SparseVector(indices=indices, values=[1.0] * len(indices))

        def fetch(wanted: int) -> EngineHits:
            found = self._points(query, _TERMS, conditions, wanted)
            rows = [(self._stored(point.payload), float(point.score)) for point in found]
            # a term's index is a hash: a point holding none of the terms may still score
            return len(found), [(r.node, s) for r, s in rows if wanted_terms.intersection(r.terms)]

        return widening_search(limit, self._total(), conditions, fetch)

    def _points(
        self,
        query: list[float] | qmodels.SparseVector,
        using: str | None,
        conditions: list[Condition],
        limit: int,
    ) -> list[qmodels.ScoredPoint]:
        """Qdrant's best `limit` points for `query` (dense, or the sparse vector `using`)."""
        found: list[qmodels.ScoredPoint] = self._call(
            "search memories",
            self._client.query_points,
            self._collection,
            query=query,
            using=using,
            query_filter=self._filter(conditions),
            limit=limit,
            with_payload=True,
        ).points
        return found

    def close(self) -> None:
        """Give the connection back (a local folder's client closes with its last store)."""
        if not self._closed:
            self._closed = True
            release(self._connection)
