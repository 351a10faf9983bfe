"""Fixtures of the vector-memory tests: every backend behind one factory, and a real PostgreSQL
server with pgvector (the `pgserver` wheel: PostgreSQL 16 with pgvector 0.6) started once per test session."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from remecli.vector.stores import VectorStore, make_store

BACKENDS = ["local", "pgvector"]
# The store contract also runs on Chroma, embedded and as a real `chroma run` server; on Qdrant
# in the official client's local mode (no package registry ships a Qdrant server); and on
# Elasticsearch only where REMECLI_TEST_ELASTICSEARCH_URL names a server (none can be installed
# from the package registries, so it is skipped otherwise).
STORE_BACKENDS = [*BACKENDS, "chroma", "chroma-server", "qdrant", "elasticsearch"]
ELASTICSEARCH_URL = os.environ.get("REMECLI_TEST_ELASTICSEARCH_URL", "")
_tables = itertools.count()


@pytest.fixture(scope="session")
def elasticsearch_url() -> str:
    """URL of a real Elasticsearch server, or the test is skipped (none is installable here)."""
    if not ELASTICSEARCH_URL:
        pytest.skip(
            "no Elasticsearch server: none can be installed from PyPI, npm or Debian; set "
            "REMECLI_TEST_ELASTICSEARCH_URL=http://127.0.0.1:9200 to run against one"
        )
    return ELASTICSEARCH_URL


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    """DSN of a real PostgreSQL + pgvector server (runs as an unprivileged user under root)."""
    with warnings.catch_warnings():  # platformdirs: XDG_RUNTIME_DIR is not set (harmless)
        warnings.simplefilter("ignore")
        import pgserver

    # Directly under /tmp: the server's own user must be able to reach its data folder, and
    # pytest's temporary folders are private to root.
    folder = Path(tempfile.mkdtemp(prefix="remecli-pg-"))
    folder.chmod(0o755)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pgserver.get_server(folder / "data", cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def chroma_server() -> Iterator[tuple[str, int]]:
    """(host, port) of a real Chroma server (`chroma run` of the chromadb wheel)."""
    from tests.vector.chroma_server import running_chroma_server

    with running_chroma_server() as address:
        yield address


class StoreFactory:
    """Opens the store of one backend at one fixed place (so a second open is a restart)."""

    def __init__(self, backend: str, folder: Path, server: Any) -> None:
        self.backend = backend
        self.folder = folder
        self.config: dict[str, Any] = {"backend": backend}
        if backend == "pgvector":
            self.config.update(dsn=server, table=f"contract_{next(_tables)}")
        elif backend.startswith("chroma"):
            self.config = {"backend": "chroma", "collection_name": f"contract_{next(_tables)}"}
            if backend == "chroma-server":
                self.config.update(host=server[0], port=server[1])
        elif backend == "qdrant":
            self.config.update(collection_name=f"contract_{next(_tables)}")
        elif backend == "elasticsearch":
            self.config.update(hosts=server, collection_name=f"contract_{next(_tables)}")
        self.opened: list[VectorStore] = []

    def __call__(self, dimensions: int = 8) -> VectorStore:
        store = make_store(dict(self.config), self.folder, dimensions, "test/vectors")
        self.opened.append(store)
        return store

    def close_all(self) -> None:
        for store in self.opened:
            try:
                store.close()
            except Exception:
                pass


@pytest.fixture(params=[*BACKENDS, "chroma-server", "qdrant"])
def backend_config(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """`default_vector_store_config` of each backend (a fresh table / folder per test)."""
    if request.param == "pgvector":
        dsn = request.getfixturevalue("pg_dsn")
        yield {"backend": "pgvector", "dsn": dsn, "table": f"reme_{next(_tables)}"}
    elif request.param == "chroma-server":
        host, port = request.getfixturevalue("chroma_server")
        yield {
            "backend": "chroma",
            "host": host,
            "port": port,
            "collection_name": f"reme_{next(_tables)}",
        }
    elif request.param == "qdrant":
        yield {"backend": "qdrant", "collection_name": f"reme_{next(_tables)}"}
    else:
        yield {"backend": "local"}


@pytest.fixture(params=STORE_BACKENDS)
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """`open_store(dimensions=8)` for each backend; calling it again reopens the same data."""
    servers = {
        "pgvector": "pg_dsn",
        "chroma-server": "chroma_server",
        "elasticsearch": "elasticsearch_url",
    }
    name = servers.get(request.param)
    server = request.getfixturevalue(name) if name else None
    factory = StoreFactory(request.param, tmp_path / "store", server)
    try:
        yield factory
    finally:
        factory.close_all()


@pytest.fixture
def fake_ai() -> Iterator[Any]:
    """The scripted fake OpenAI server, with n-gram embeddings (similar words → similar vectors)."""
    from tests.fakes.ngram_embeddings import NgramFakeOpenAIServer

    server = NgramFakeOpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()
