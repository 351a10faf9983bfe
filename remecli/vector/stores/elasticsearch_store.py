"""The Elasticsearch store (the official `elasticsearch` client), EXPERIMENTAL: no Elasticsearch
server can be installed from the package registries this project reaches (PyPI, npm, Debian),
so it has not run against a real server here; its query translation (`elasticsearch_query`) is
tested, and the store contract suite runs when REMECLI_TEST_ELASTICSEARCH_URL names a server.

One index per store (lowercase name): filtered approximate kNN on a cosine `dense_vector`,
Elasticsearch's BM25 on the analyzed keyword terms, column filters in the engine, metadata
filters and the sort order in Python (`in_python`), new memories through the bulk API.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, TypedDict, TypeVar

import numpy as np

from remecli.vector.filters import Condition
from remecli.vector.node import ContentKey, MemoryNode
from remecli.vector.stores import elasticsearch_query as q
from remecli.vector.stores.base import VectorStoreError, check_dimensions
from remecli.vector.stores.in_python import EngineHits, Stored, matches, widening_search
from remecli.vector.stores.options import no_extra, number, text_pairs
from remecli.vector.stores.python_filtered import PythonFilteredStore, first_stored
from remecli.vector.values import JSONObject, Settings

if TYPE_CHECKING:
    from elasticsearch import Elasticsearch

T = TypeVar("T")

EXPERIMENTAL = (
    "the elasticsearch vector store is experimental: no Elasticsearch server could be installed "
    "to test it against, so prefer local, pgvector, chroma or qdrant for memories you keep"
)
_NO_VECTOR = [q.VECTOR_FIELD]


class _Connect(TypedDict, total=False):
    """The client's connection keywords that the store options may set."""

    hosts: str | list[str]
    basic_auth: str | tuple[str, str]
    api_key: str | tuple[str, str]
    cloud_id: str
    verify_certs: bool
    headers: dict[str, str]


def _secret(value: object) -> str | tuple[str, str]:
    """`basic_auth` / `api_key`: text, or a [name, secret] pair."""
    if isinstance(value, list | tuple) and len(value) == 2:
        return (str(value[0]), str(value[1]))
    return str(value)


def _connect_options(options: Settings) -> _Connect:
    """The connection keywords taken out of the store options."""
    hosts = options.pop("hosts", "http://localhost:9200")
    connect: _Connect = {
        "hosts": [str(h) for h in hosts] if isinstance(hosts, list) else str(hosts)
    }
    if "basic_auth" in options:
        connect["basic_auth"] = _secret(options.pop("basic_auth"))
    if "api_key" in options:
        connect["api_key"] = _secret(options.pop("api_key"))
    if "cloud_id" in options:
        connect["cloud_id"] = str(options.pop("cloud_id"))
    if "verify_certs" in options:
        connect["verify_certs"] = bool(options.pop("verify_certs"))
    headers = text_pairs(options.pop("headers", None), "headers")
    if headers is not None:
        connect["headers"] = headers
    return connect


def open_elasticsearch(
    options: Settings, dimensions: int, embedding_model: str = ""
) -> ElasticsearchVectorStore:
    """The store for `default_vector_store_config` options (warns: experimental)."""
    # Shown as "<remecli vector store>:0: UserWarning: …" (no source line of a worker thread).
    warnings.warn_explicit(EXPERIMENTAL, UserWarning, "<remecli vector store>", 0, module=__name__)
    try:
        from elasticsearch import Elasticsearch
    except ImportError:
        raise VectorStoreError(
            "the elasticsearch backend needs the elasticsearch client: "
            "pip install 'remecli[elasticsearch]'"
        ) from None
    options.pop("db_path", None)
    options.pop("path", None)
    index = str(options.pop("collection_name", None) or "reme").lower()
    connect = _connect_options(options)
    timeout = number(options.pop("request_timeout", 10), "request_timeout")
    no_extra("elasticsearch", options)
    where = connect.get("cloud_id") or connect["hosts"]
    try:
        client = Elasticsearch(**connect, request_timeout=timeout)
        client.info()
    except Exception as exc:  # noqa: BLE001 - every client failure becomes one clear line
        raise VectorStoreError(
            f"cannot reach Elasticsearch at {where} ({_first_line(exc)}); start it or fix hosts "
            "/ basic_auth / api_key in default_vector_store_config"
        ) from None
    return ElasticsearchVectorStore(client, index, dimensions, embedding_model)


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text.strip() else type(exc).__name__


class ElasticsearchVectorStore(PythonFilteredStore):
    """See the module docstring."""

    def __init__(
        self, client: Elasticsearch, index: str, dimensions: int, embedding_model: str = ""
    ) -> None:
        self.dimensions = dimensions
        self._client = client
        self._index = index
        self._lock = threading.RLock()
        if not self._call("open the index", lambda: bool(client.indices.exists(index=index))):
            body = q.index_body(dimensions, embedding_model)
            self._call(
                "create the index",
                lambda: client.indices.create(
                    index=index, settings=body["settings"], mappings=body["mappings"]
                ),
            )
        mapping = self._call("open the index", lambda: client.indices.get_mapping(index=index))
        stored = q.stored_dimensions(dict(mapping.body), index)
        check_dimensions(stored, dimensions, f"Elasticsearch index {index}")

    # -- engine calls ------------------------------------------------------------------------
    def _call(self, what: str, request: Callable[[], T]) -> T:
        try:
            return request()
        except VectorStoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - a lost server or a refused request
            raise VectorStoreError(
                f"Elasticsearch failed to {what} ({_first_line(exc)}); check that the server "
                "runs and the index is writable"
            ) from None

    def _bulk(self, what: str, actions: list[JSONObject]) -> None:
        """One bulk request (a delete of what another process deleted first is no error)."""
        from elasticsearch import helpers

        if actions:
            self._call(
                what,
                lambda: helpers.bulk(
                    self._client, actions, refresh="wait_for", ignore_status=(404,)
                ),
            )

    def _scan(self, query: JSONObject) -> list[Stored]:
        from elasticsearch import helpers

        hits = self._call(
            "list memories",
            lambda: list(
                helpers.scan(
                    self._client,
                    query={"query": query},
                    index=self._index,
                    source_excludes=_NO_VECTOR,
                )
            ),
        )
        return [Stored(*q.node_of(hit["_source"])) for hit in hits]

    def _mget(self, memory_ids: list[str], vectors: bool = False) -> list[q.StoredDoc]:
        if not memory_ids:
            return []
        found = self._call(
            "read memories",
            lambda: self._client.mget(
                index=self._index,
                ids=list(memory_ids),
                source_excludes=None if vectors else _NO_VECTOR,
            ),
        )
        return [doc for doc in found["docs"] if doc.get("found")]

    def _twins(self, nodes: list[MemoryNode]) -> dict[ContentKey, MemoryNode]:
        """See `PythonFilteredStore._twins` (one scan by content hash)."""
        if not nodes:
            return {}
        return first_stored(self._scan(q.same_content_query([n.content_hash for n in nodes])))

    def _matching(self, conditions: list[Condition]) -> list[Stored]:
        rows = self._scan(q.filtered(conditions))
        return [row for row in rows if matches(row.node, conditions)]

    # -- the contract ------------------------------------------------------------------------
    def add(self, nodes: list[MemoryNode], vectors: np.ndarray) -> list[tuple[MemoryNode, bool]]:
        """See `VectorStore.add` (one lookup of the content hashes, then one bulk request)."""
        from remecli.vector.terms import document_terms

        actions: list[JSONObject] = []
        with self._lock:
            results, new = self._new_nodes(nodes, vectors)
            for item in new:
                row = np.asarray(item.vector, dtype=np.float32).tolist()
                terms = document_terms(item.node.embedding_text())
                doc = q.document(item.node, item.seq, terms, row)
                actions.append(
                    {
                        "_op_type": "index",
                        "_index": self._index,
                        "_id": item.node.memory_id,
                        "_source": doc,
                    }
                )
            self._bulk("store memories", actions)
        return results

    def get(self, memory_id: str) -> MemoryNode | None:
        """See `VectorStore.get`."""
        found = self._mget([memory_id])
        return q.node_of(found[0]["_source"])[1] if found else None

    def vector_of(self, memory_id: str) -> list[float] | None:
        """See `VectorStore.vector_of`."""
        found = self._mget([memory_id], vectors=True)
        return q.stored_vector(found[0]["_source"]) if found else None

    def _row(self, memory_id: str, with_vector: bool) -> tuple[Stored, list[float] | None] | None:
        found = self._mget([memory_id], vectors=with_vector)
        if not found:
            return None
        source = found[0]["_source"]
        return Stored(*q.node_of(source)), q.stored_vector(source) if with_vector else None

    def _rewrite(self, seq: int, node: MemoryNode, vector: list[float] | np.ndarray) -> None:
        """The document is indexed again under its id."""
        from remecli.vector.terms import document_terms

        row = np.asarray(vector, dtype=np.float32).tolist()
        doc = q.document(node, seq, document_terms(node.embedding_text()), row)
        self._call(
            "update a memory",
            lambda: self._client.index(
                index=self._index, id=node.memory_id, document=doc, refresh="wait_for"
            ),
        )

    def _delete_ids(self, memory_ids: list[str]) -> None:
        actions: list[JSONObject] = [
            {"_op_type": "delete", "_index": self._index, "_id": i} for i in memory_ids
        ]
        self._bulk("delete memories", actions)

    def _stored_ids(self, memory_ids: list[str]) -> list[str]:
        return [doc["_id"] for doc in self._mget(memory_ids)]

    def count(self, conditions: list[Condition]) -> int:
        """See `VectorStore.count` (Elasticsearch counts when it decides every condition)."""
        if q.filter_clauses(conditions)[1]:
            query = q.filtered(conditions)
            counted = self._call(
                "count memories", lambda: self._client.count(index=self._index, query=query)
            )
            return int(counted["count"])
        return len(self._matching(conditions))

    def _search(
        self, size: int, query: JSONObject | None = None, knn: JSONObject | None = None
    ) -> list[tuple[MemoryNode, float]]:
        found = self._call(
            "search memories",
            lambda: self._client.search(
                index=self._index, source_excludes=_NO_VECTOR, size=size, query=query, knn=knn
            ),
        )
        return [
            (q.node_of(hit["_source"])[1], float(hit["_score"])) for hit in found["hits"]["hits"]
        ]

    def vector_search(
        self, vector: np.ndarray, conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """See `VectorStore.vector_search` (filtered kNN; asks for more while metadata filters
        leave fewer than `limit`)."""
        if limit <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32).tolist()

        def fetch(wanted: int) -> EngineHits:
            knn = q.knn_clause(query, conditions, wanted, min(10_000, max(100, wanted * 2)))
            found = self._search(knn=knn, size=wanted)
            return len(found), [(node, q.cosine_of(score)) for node, score in found]

        return widening_search(limit, self.count([]), conditions, fetch)

    def keyword_search(
        self, terms: list[str], conditions: list[Condition], limit: int
    ) -> list[MemoryNode]:
        """See `VectorStore.keyword_search` (Elasticsearch's BM25 over the keyword terms)."""
        if not terms or limit <= 0:
            return []
        _, exact = q.filter_clauses(conditions)
        size = limit if exact else min(10_000, max(limit, self.count([])))  # the result window
        hits: list[MemoryNode] = []
        for node, score in self._search(query=q.keyword_query(terms, conditions), size=size):
            if matches(node, conditions):
                node.score = score
                hits.append(node)
        return hits[:limit]

    def close(self) -> None:
        """Close the client's connections."""
        self._call("close the client", self._client.close)
