"""The Chroma store (the `chromadb` package): embedded in this process (`path`), or a client of a
Chroma server (`host` and `port`, e.g. one started with `chroma run`).

One collection per store, cosine space. Each record keeps the node's columns and its metadata
(as JSON text) in Chroma's metadata, and its analyzed keyword terms as the document, written
` term term ` so that `$contains: " term "` matches whole terms. Chroma narrows by target and
by terms; the contract's filters, sort order and BM25 scores are decided in Python
(`in_python`), so the meaning is the same as in the SQL stores. An embedded store belongs to one
process; share one Chroma memory between processes through a server.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import numpy as np

from remecli.vector.filters import Condition, target_of
from remecli.vector.node import COLUMNS, ContentKey, MemoryNode
from remecli.vector.stores.base import VectorStoreError, check_dimensions
from remecli.vector.stores.in_python import (
    EngineHits,
    Stored,
    bm25,
    matches,
    widening_search,
)
from remecli.vector.stores.options import text_pairs, whole_number
from remecli.vector.stores.python_filtered import PythonFilteredStore, first_stored
from remecli.vector.terms import document_terms
from remecli.vector.values import Settings

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.collection_configuration import CreateHNSWConfiguration
    from chromadb.api.types import (
        Embedding,
        GetResult,
        Include,
        LiteralValue,
        Metadata,
        Where,
        WhereDocument,
    )
    from chromadb.base_types import InclusionExclusionOperator

P = ParamSpec("P")
T = TypeVar("T")
Record = dict[str, str | int | None]  # a node as Chroma's metadata holds it

_GET: Include = ["metadatas", "documents"]
# HNSW is approximate: with many near-duplicate memories Chroma's defaults (100/100) were seen to
# miss an exact match (chroma-core/chroma#3113); a wider beam costs little at memory sizes.
HNSW: CreateHNSWConfiguration = {"space": "cosine", "ef_construction": 200, "ef_search": 200}
_PAGE = 1000  # ids per delete request
_FIELDS = tuple(name for name in COLUMNS if name != "memory_id")  # memory_id is the record id


def connect(options: Settings, default_path: str) -> ClientAPI:
    """A Chroma client for the store options (`host`/`port`/`ssl`/`headers`, else `path`)."""
    try:
        import chromadb
        from chromadb.config import Settings
    except ImportError:
        raise VectorStoreError(
            "the chroma backend needs chromadb: pip install 'remecli[chroma]'"
        ) from None
    settings = Settings(anonymized_telemetry=False)
    host = options.pop("host", None)
    try:
        if host:
            port = whole_number(options.pop("port", 8000), "port")
            client = chromadb.HttpClient(
                host=str(host),
                port=port,
                ssl=bool(options.pop("ssl", False)),
                headers=text_pairs(options.pop("headers", None), "headers"),
                settings=settings,
            )
            client.heartbeat()
            return client
        return chromadb.PersistentClient(path=default_path, settings=settings)
    except Exception as exc:  # noqa: BLE001 - every client failure becomes one clear line
        where = f"{host}:{options.get('port', '')}" if host else default_path
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise VectorStoreError(
            f"cannot reach Chroma at {where} ({first}); start it (`chroma run --path DIR "
            "--port PORT`) or fix the chroma settings in default_vector_store_config"
        ) from None


class ChromaVectorStore(PythonFilteredStore):
    """See the module docstring."""

    def __init__(
        self, client: ClientAPI, collection: str, dimensions: int, embedding_model: str = ""
    ) -> None:
        self.dimensions = dimensions
        self._client = client
        self._lock = threading.RLock()
        try:
            self._collection = client.get_or_create_collection(
                collection,
                configuration={"hnsw": HNSW},
                metadata={"dimensions": dimensions, "embedding_model": embedding_model or "-"},
                embedding_function=None,
            )
        except Exception as exc:  # noqa: BLE001
            raise VectorStoreError(
                f"cannot open the Chroma collection {collection!r} ({exc}); collection names "
                "are 3-512 letters, digits, . _ -"
            ) from None
        stored = (self._collection.metadata or {}).get("dimensions")
        check_dimensions(
            int(stored) if stored is not None else None, dimensions, f"Chroma {collection}"
        )

    # -- records -----------------------------------------------------------------------------
    @staticmethod
    def _record(node: MemoryNode, seq: int) -> tuple[Record, str]:
        fields = node.stored_fields()
        record: Record = {k: fields[k] for k in _FIELDS if fields[k] is not None}
        record["seq"] = seq
        record["metadata_json"] = json.dumps(node.stored_metadata(), ensure_ascii=False)
        terms = document_terms(node.embedding_text())
        return record, " " + " ".join(terms) + " "

    @staticmethod
    def _stored(memory_id: str, record: Mapping[str, object], document: str | None) -> Stored:
        row = dict(record, memory_id=memory_id)
        node = MemoryNode.from_row(row, json.loads(str(record.get("metadata_json") or "{}")))
        return Stored(int(str(record.get("seq", 0))), node, (document or "").split())

    def _rows(
        self, ids: list[str], metadatas: list[Metadata] | None, documents: list[str] | None
    ) -> list[Stored]:
        """The stored nodes of a get's or a query's columns (the documents when included)."""
        texts: list[str | None] = list(documents) if documents else [None] * len(ids)
        return [
            self._stored(memory_id, record or {}, document)
            for memory_id, record, document in zip(ids, metadatas or [], texts, strict=True)
        ]

    def _got(self, found: GetResult) -> list[Stored]:
        return self._rows(found["ids"], found["metadatas"], found["documents"])

    @staticmethod
    def _where(conditions: list[Condition]) -> Where | None:
        """What Chroma can narrow by: the target's type and name."""
        memory_type, target = target_of(conditions)
        named = (("memory_type", memory_type), ("memory_target", target))
        parts: list[Where] = [{k: v} for k, v in named if v]
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else {"$and": parts}

    def _call(self, what: str, method: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(*args, **kwargs)
        except VectorStoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - a lost server or a damaged folder
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise VectorStoreError(
                f"Chroma failed to {what} ({first}); check that the Chroma server runs or that "
                "the store folder is readable"
            ) from None

    def _matching(self, conditions: list[Condition]) -> list[Stored]:
        found = self._call(
            "list memories",
            self._collection.get,
            where=self._where(conditions),
            include=_GET,
        )
        return [row for row in self._got(found) if matches(row.node, conditions)]

    def _by_ids(self, ids: list[str], include: Include | None = None) -> GetResult:
        return self._call(
            "read memories",
            self._collection.get,
            ids=ids,
            include=_GET if include is None else include,
        )

    # -- the contract ------------------------------------------------------------------------
    def add(self, nodes: list[MemoryNode], vectors: np.ndarray) -> list[tuple[MemoryNode, bool]]:
        """See `VectorStore.add`: one look-up of the stored twins per batch, and the new nodes in
        as few `add` calls as the client's batch size allows."""
        ids: list[str] = []
        records: list[Metadata] = []
        documents: list[str] = []
        rows: list[Embedding] = []
        with self._lock:
            results, new = self._new_nodes(nodes, vectors)
            for item in new:
                record, document = self._record(item.node, item.seq)
                ids.append(item.node.memory_id)
                records.append(record)
                documents.append(document)
                rows.append(np.asarray(item.vector, dtype=np.float32))
            step = self._batch_size()
            for start in range(0, len(ids), step):
                part = slice(start, start + step)
                self._call(
                    "store memories",
                    self._collection.add,
                    ids=ids[part],
                    embeddings=rows[part],
                    metadatas=records[part],
                    documents=documents[part],
                )
        return results

    def replace_vectors(self, memory_ids: list[str], vectors: np.ndarray) -> None:
        """Replace the vectors of these ids (re-embedding), in batched `update` calls."""
        step = self._batch_size()
        with self._lock:
            for start in range(0, len(memory_ids), step):
                part = np.asarray(vectors[start : start + step], dtype=np.float32)
                self._call(
                    "replace vectors",
                    self._collection.update,
                    ids=memory_ids[start : start + step],
                    embeddings=part.tolist(),
                )

    def _batch_size(self) -> int:
        """The most records one call may carry (the client's limit)."""
        try:
            return max(1, int(self._client.get_max_batch_size()))
        except Exception:  # noqa: BLE001 - an older client without the call
            return 5_000

    def _twins(self, nodes: list[MemoryNode]) -> dict[ContentKey, MemoryNode]:
        """See `PythonFilteredStore._twins`: one node by its whole key, many by their content
        hashes, 1,000 a request."""
        if len(nodes) == 1:
            memory_type, target, digest = nodes[0].content_key
            where: Where = {
                "$and": [
                    {"memory_type": memory_type},
                    {"memory_target": target},
                    {"content_hash": digest},
                ]
            }
            found = self._call("look up a memory", self._collection.get, where=where, include=_GET)
            return first_stored(self._got(found))
        wanted = {n.content_key for n in nodes}
        hashes = sorted({key[2] for key in wanted})
        rows: list[Stored] = []
        for start in range(0, len(hashes), 1_000):
            part: list[LiteralValue] = [*hashes[start : start + 1_000]]
            among: dict[InclusionExclusionOperator, list[LiteralValue]] = {"$in": part}
            found = self._call(
                "look up memories",
                self._collection.get,
                where={"content_hash": among},
                include=_GET,
            )
            rows += self._got(found)
        return first_stored(rows, wanted)

    def get(self, memory_id: str) -> MemoryNode | None:
        """See `VectorStore.get`."""
        rows = self._got(self._by_ids([memory_id]))
        return rows[0].node if rows else None

    def vector_of(self, memory_id: str) -> list[float] | None:
        """See `VectorStore.vector_of`."""
        found = self._by_ids([memory_id], ["embeddings"])
        embeddings = found.get("embeddings")
        if embeddings is None or len(embeddings) == 0:
            return None
        return [float(x) for x in embeddings[0]]

    def _row(self, memory_id: str, with_vector: bool) -> tuple[Stored, list[float] | None] | None:
        rows = self._got(self._by_ids([memory_id]))
        if not rows:
            return None
        return rows[0], self.vector_of(memory_id) if with_vector else None

    def _rewrite(self, seq: int, node: MemoryNode, vector: list[float] | np.ndarray) -> None:
        record, document = self._record(node, seq)
        if node.message_time == "":
            record["message_time"] = None  # removes the key
        embedding: Embedding = np.asarray(vector, dtype=np.float32)
        self._call(
            "update a memory",
            self._collection.update,
            ids=[node.memory_id],
            metadatas=[record],
            documents=[document],
            embeddings=[embedding],  # else Chroma re-embeds a changed document
        )

    def _delete_ids(self, memory_ids: list[str]) -> None:
        for start in range(0, len(memory_ids), _PAGE):
            part = memory_ids[start : start + _PAGE]
            self._call("delete memories", self._collection.delete, ids=part)

    def _stored_ids(self, memory_ids: list[str]) -> list[str]:
        return self._by_ids(memory_ids, [])["ids"]

    def count(self, conditions: list[Condition]) -> int:
        """See `VectorStore.count`."""
        if not conditions:
            return int(self._call("count memories", self._collection.count))
        return len(self._matching(conditions))

    def vector_search(
        self, vector: np.ndarray, conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """See `VectorStore.vector_search` (Chroma's HNSW; asks for more while filters the
        engine cannot apply leave fewer than `limit`)."""
        if limit <= 0:
            return []
        total = int(self._call("count memories", self._collection.count))
        query = [np.asarray(vector, dtype=np.float32).tolist()]

        def fetch(wanted: int) -> EngineHits:
            found = self._call(
                "search memories",
                self._collection.query,
                query_embeddings=query,
                n_results=wanted,
                where=self._where(conditions),
                include=[*_GET, "distances"],
            )
            ids, metadatas, documents = found["ids"], found["metadatas"], found["documents"]
            distances = found["distances"]  # one list each: one query
            texts = documents[0] if documents else None
            stored = self._rows(ids[0], metadatas[0] if metadatas else None, texts)
            rows = zip(stored, distances[0] if distances else [], strict=True)
            return len(ids[0]), [(row.node, 1.0 - float(dist)) for row, dist in rows]

        return widening_search(limit, total, conditions, fetch)

    def keyword_search(
        self, terms: list[str], conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """See `VectorStore.keyword_search` (Chroma finds the documents holding a term; BM25
        over them ranks)."""
        if not terms or limit <= 0:
            return []
        unique = sorted(set(terms))
        clauses: list[WhereDocument] = [{"$contains": f" {term} "} for term in unique]
        document: WhereDocument = clauses[0] if len(clauses) == 1 else {"$or": clauses}
        found = self._call(
            "search memories",
            self._collection.get,
            where=self._where(conditions),
            where_document=document,
            include=_GET,
        )
        candidates = [row for row in self._got(found) if matches(row.node, conditions)]
        total = self.count(conditions)
        hits = bm25(candidates, terms, total, limit)
        for row, score in hits:
            row.node.score = score
        return [row.node for row, _ in hits]

    def close(self) -> None:
        """Nothing to release: Chroma's client is shared by every store of its path or server."""
