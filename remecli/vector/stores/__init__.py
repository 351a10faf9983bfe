"""Vector store backends behind one contract (`VectorStore`): `local` (SQLite + numpy, the
default), `pgvector` (PostgreSQL), `chroma` (embedded, or a Chroma server), `qdrant` (a Qdrant
server, or the client's local mode) and `elasticsearch` (an Elasticsearch server; experimental)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TypedDict

from remecli.config.privacy import private_dirs
from remecli.vector.stores.base import DuplicateContentError, VectorStore, VectorStoreError
from remecli.vector.stores.options import no_extra, number, whole_number
from remecli.vector.values import ConfigSection, Settings

BACKENDS = ("local", "pgvector", "chroma", "qdrant", "elasticsearch")


DEFAULT_COLLECTION = "reme"  # the reference's default collection: the store's own folder
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}$")
# Keys of the reference's store configs that name its embedding setup or an unused index kind.
_IGNORED = ("embedding_model",)


def make_store(
    config: ConfigSection, working_dir: Path, dimensions: int, embedding_model: str = ""
) -> VectorStore:
    """The store `config` asks for (`{"backend": "local"}` by default). The reference's keys are
    read too: `collection_name` and `db_path` (local); `collection_name` (the table), `host`,
    `port`, `database`, `user`, `password`, `min_size`/`max_size`, `use_hnsw`, and ours
    `row_security` (a table shared by several users, docs/vector.md) (pgvector);
    `collection_name`, `path`/`db_path`, or `host`, `port`, `ssl`, `headers` (chroma);
    `collection_name`, `path`/`db_path`, or `url`/`host`, `port`, `api_key`, `https`,
    `grpc_port`, `prefer_grpc`, `on_disk`, `distance` (qdrant); `collection_name`, `hosts`,
    `basic_auth`, `api_key`, `cloud_id`, `verify_certs`, `headers` (elasticsearch)."""
    options: Settings = {k: v for k, v in dict(config or {}).items() if k not in _IGNORED}
    backend = options.pop("backend", "local") or "local"
    if backend == "local":
        from remecli.vector.stores.local import LocalVectorStore

        folder = Path(str(options.pop("path", "") or options.pop("db_path", "") or ""))
        folder = folder if str(folder) not in ("", ".") else working_dir / "vector_store"
        collection = options.pop("collection_name", None) or DEFAULT_COLLECTION
        if not _NAME.match(str(collection)):
            raise VectorStoreError(
                f"collection_name {collection!r} is not allowed: use letters, digits, _ . -"
            )
        no_extra(str(backend), options)
        if collection != DEFAULT_COLLECTION:
            folder = folder / str(collection)
        return LocalVectorStore(folder, dimensions, embedding_model)
    if backend == "pgvector":
        return _pgvector(options, dimensions)
    if backend == "chroma":
        return _chroma(options, working_dir, dimensions, embedding_model)
    if backend == "qdrant":
        return _qdrant(options, working_dir, dimensions)
    if backend == "elasticsearch":
        from remecli.vector.stores.elasticsearch_store import open_elasticsearch

        return open_elasticsearch(options, dimensions, embedding_model)
    raise VectorStoreError(
        f"unknown vector store backend {backend!r}; use one of {', '.join(BACKENDS)}"
    )


class _PgOptions(TypedDict, total=False):
    """The keyword options of `PgVectorStore`."""

    table: str
    hnsw: bool
    pool_size: int
    connect_timeout: float
    row_security: bool


def _pgvector(options: Settings, dimensions: int) -> VectorStore:
    options.pop("db_path", None)
    if "collection_name" in options:
        options["table"] = options.pop("collection_name")
    if "use_hnsw" in options:
        options["hnsw"] = bool(options.pop("use_hnsw"))
    if options.pop("use_diskann", False):
        raise VectorStoreError("use_diskann is not supported: drop it (the HNSW index is used)")
    options.pop("min_size", None)
    if "max_size" in options:
        options["pool_size"] = whole_number(options.pop("max_size"), "max_size")
    parts = {
        k: options.pop(k) for k in ("host", "port", "database", "user", "password") if k in options
    }
    dsn = str(options.pop("dsn", "") or "")
    if not dsn and parts:
        from psycopg.conninfo import make_conninfo

        names = {"database": "dbname"}
        dsn = make_conninfo(**{names.get(k, k): str(v) for k, v in parts.items()})
    if not dsn:
        raise VectorStoreError(
            'the pgvector backend needs a dsn, e.g. {"backend": "pgvector", '
            '"dsn": "postgresql://user:password@host:5432/db"} (or host, port, database, '
            "user and password)"
        )
    try:
        from remecli.vector.stores.pgvector import PgVectorStore
    except ImportError:
        raise VectorStoreError(
            "the pgvector backend needs psycopg: pip install 'remecli[pgvector]'"
        ) from None
    chosen: _PgOptions = {}
    if "table" in options:
        chosen["table"] = str(options.pop("table"))
    if "hnsw" in options:
        chosen["hnsw"] = bool(options.pop("hnsw"))
    if "pool_size" in options:
        chosen["pool_size"] = whole_number(options.pop("pool_size"), "pool_size")
    if "connect_timeout" in options:
        chosen["connect_timeout"] = number(options.pop("connect_timeout"), "connect_timeout")
    if "row_security" in options:
        chosen["row_security"] = bool(options.pop("row_security"))
    no_extra("pgvector", options)
    return PgVectorStore(dsn, dimensions, **chosen)


def _chroma(
    options: Settings, working_dir: Path, dimensions: int, embedding_model: str
) -> VectorStore:
    from remecli.vector.stores.chroma import ChromaVectorStore, connect

    folder = Path(str(options.pop("path", "") or options.pop("db_path", "") or ""))
    folder = folder if str(folder) not in ("", ".") else working_dir / "vector_store" / "chroma"
    if not options.get("host"):
        private_dirs(folder)
    collection = str(options.pop("collection_name", None) or DEFAULT_COLLECTION)
    client = connect(options, str(folder))
    no_extra("chroma", options)
    return ChromaVectorStore(client, collection, dimensions, embedding_model)


def _qdrant(options: Settings, working_dir: Path, dimensions: int) -> VectorStore:
    from remecli.vector.stores.qdrant import QdrantVectorStore
    from remecli.vector.stores.qdrant_client_pool import connect, make_private, release

    distance = str(options.pop("distance", "cosine")).lower()
    if distance != "cosine":
        raise VectorStoreError(
            f"distance {distance!r} is not supported: drop it (memories use cosine distance)"
        )
    folder = str(options.pop("path", "") or options.pop("db_path", "") or "")
    if folder in ("", "."):
        folder = str(working_dir / "vector_store" / "qdrant")
    collection = str(options.pop("collection_name", None) or DEFAULT_COLLECTION)
    on_disk = bool(options.pop("on_disk", False))
    server = any(options.get(key) for key in ("url", "host", "api_key"))
    if not server and folder != ":memory:":
        private_dirs(Path(folder))
    connection = connect(options, folder)
    try:
        no_extra("qdrant", options)
        store = QdrantVectorStore(connection, collection, dimensions, on_disk=on_disk)
        if connection.key and folder != ":memory:":
            make_private(folder)
        return store
    except BaseException:
        release(connection)
        raise


__all__ = ["BACKENDS", "DuplicateContentError", "VectorStore", "VectorStoreError", "make_store"]
