"""Qdrant clients for the store options: a client of a Qdrant server (`url`, or `host` and
`port`), or the official client's local mode (a folder, or `":memory:"`).

The local mode keeps its folder locked for one client, so every store of one folder in this
process shares one client (and one lock: the local mode is not thread-safe); the last store
that closes closes it."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from remecli.vector.stores.base import VectorStoreError
from remecli.vector.stores.options import optional_text, whole_number
from remecli.vector.values import Settings

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

_SERVER_KEYS = ("url", "host", "port", "api_key", "https", "grpc_port", "prefer_grpc", "timeout")


@dataclass
class QdrantConnection:
    """One client and the lock its calls take; `key` names a shared local client."""

    client: QdrantClient
    lock: threading.RLock = field(default_factory=threading.RLock)
    key: str = ""
    users: int = 1


_local: dict[str, QdrantConnection] = {}
_local_guard = threading.Lock()


def _client_class() -> type[QdrantClient]:
    try:
        from qdrant_client import QdrantClient
    except ImportError:
        raise VectorStoreError(
            "the qdrant backend needs qdrant-client: pip install 'remecli[qdrant]'"
        ) from None
    return QdrantClient


def connect(options: Settings, default_path: str) -> QdrantConnection:
    """A connection for the store options (server keys are taken out of `options`)."""
    client_class = _client_class()
    server = {key: options.pop(key) for key in _SERVER_KEYS if key in options}
    if server.get("url") or server.get("host") or server.get("api_key"):
        return _server(client_class, server)
    for key in ("port", "grpc_port", "prefer_grpc", "https", "timeout"):
        server.pop(key, None)  # the reference's defaults, meaningless without a server
    return _shared_local(client_class, default_path)


def _server(client_class: type[QdrantClient], server: Settings) -> QdrantConnection:
    where = server.get("url") or f"{server.get('host', 'localhost')}:{server.get('port', 6333)}"
    try:
        client = client_class(
            url=optional_text(server.get("url")),
            host=optional_text(server.get("host")),
            port=whole_number(server.get("port", 6333), "port"),
            grpc_port=whole_number(server.get("grpc_port", 6334), "grpc_port"),
            prefer_grpc=bool(server.get("prefer_grpc", False)),
            https=None if server.get("https") is None else bool(server.get("https")),
            api_key=optional_text(server.get("api_key")),
            timeout=whole_number(server.get("timeout", 10), "timeout"),
            check_compatibility=False,
        )
        client.get_collections()
    except Exception as exc:  # noqa: BLE001 - every client failure becomes one clear line
        raise VectorStoreError(
            f"cannot reach Qdrant at {where} ({first_line(exc)}); start the Qdrant server or "
            "fix url / host / port / api_key in default_vector_store_config"
        ) from None
    return QdrantConnection(client)


def _shared_local(client_class: type[QdrantClient], path: str) -> QdrantConnection:
    with _local_guard:
        shared = _local.get(path)
        if shared is not None:
            shared.users += 1
            return shared
        try:
            if path == ":memory:":
                client = client_class(location=":memory:")
            else:
                client = client_class(path=path, force_disable_check_same_thread=True)
        except Exception as exc:  # noqa: BLE001
            raise VectorStoreError(
                f"cannot open the Qdrant folder {path} ({first_line(exc)}); its local mode "
                "serves one process: share one Qdrant memory between processes through a "
                "Qdrant server (url or host/port)"
            ) from None
        shared = _local[path] = QdrantConnection(client, key=path)
        return shared


def release(connection: QdrantConnection) -> None:
    """A store is done with the connection: close it when nobody else uses it."""
    with _local_guard:
        connection.users -= 1
        if connection.users > 0:
            return
        if connection.key:
            _local.pop(connection.key, None)
    with connection.lock:
        try:
            connection.client.close()
        except Exception:  # noqa: BLE001 - closing what is already gone
            pass


def make_private(folder: str) -> None:
    """Memories are private to the user: the local mode's folders 0700, its files 0600 (SQLite
    gives its journal the database file's mode)."""
    for root, folders, files in os.walk(folder):
        os.chmod(root, 0o700)
        for name in folders:
            os.chmod(os.path.join(root, name), 0o700)
        for name in files:
            os.chmod(os.path.join(root, name), 0o600)


def first_line(exc: BaseException) -> str:
    """The first line of an error's text (its type when it has none)."""
    text = str(exc)
    return text.splitlines()[0] if text.strip() else type(exc).__name__
