"""Vector store backends behind one contract (`VectorStore`): `local` (SQLite + numpy, the
default) and `pgvector` (PostgreSQL)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from remecli.vector.stores.base import DuplicateContentError, VectorStore, VectorStoreError

BACKENDS = ("local", "pgvector")


def make_store(
    config: dict[str, Any], working_dir: Path, dimensions: int, embedding_model: str = ""
) -> VectorStore:
    """The store `config` asks for (`{"backend": "local"}` by default)."""
    options = dict(config or {})
    backend = options.pop("backend", "local") or "local"
    if backend == "local":
        from remecli.vector.stores.local import LocalVectorStore

        folder = Path(options.pop("path", "") or working_dir / "vector_store")
        _no_extra(backend, options)
        return LocalVectorStore(folder, dimensions, embedding_model)
    if backend == "pgvector":
        dsn = options.pop("dsn", "")
        if not dsn:
            raise VectorStoreError(
                'the pgvector backend needs a dsn, e.g. {"backend": "pgvector", '
                '"dsn": "postgresql://user:password@host:5432/db"}'
            )
        try:
            from remecli.vector.stores.pgvector import PgVectorStore
        except ImportError:
            raise VectorStoreError(
                "the pgvector backend needs psycopg: pip install 'remecli[pgvector]'"
            ) from None
        allowed = {"table", "hnsw", "pool_size", "connect_timeout"}
        _no_extra(backend, {k: v for k, v in options.items() if k not in allowed})
        return PgVectorStore(dsn, dimensions, **options)
    raise VectorStoreError(
        f"unknown vector store backend {backend!r}; use one of {', '.join(BACKENDS)}"
    )


def _no_extra(backend: str, options: dict[str, Any]) -> None:
    if options:
        raise VectorStoreError(
            f"unknown option(s) for the {backend} vector store: {', '.join(sorted(options))}"
        )


__all__ = ["BACKENDS", "DuplicateContentError", "VectorStore", "VectorStoreError", "make_store"]
