"""A real Chroma server for the tests: `chroma run` (the chromadb wheel's own server) on a free
loopback port with a temporary data folder, stopped afterwards."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_chroma_server(timeout: float = 60.0) -> Iterator[tuple[str, int]]:
    """Start `chroma run`, wait for its heartbeat, yield (host, port), stop it."""
    chroma = shutil.which("chroma")
    if chroma is None:
        pytest.skip("the chroma command is missing: pip install -e '.[test]' installs chromadb")
    import chromadb
    from chromadb.config import Settings

    folder = Path(tempfile.mkdtemp(prefix="remecli-chroma-"))
    port = _free_port()
    log = (folder / "server.log").open("wb")
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    process = subprocess.Popen(
        [chroma, "run", "--path", str(folder / "data"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                client = chromadb.HttpClient(
                    host="127.0.0.1", port=port, settings=Settings(anonymized_telemetry=False)
                )
                client.heartbeat()
                break
            except Exception:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        "chroma run did not start: " + (folder / "server.log").read_text()[-2000:]
                    ) from None
                time.sleep(0.2)
        yield ("127.0.0.1", port)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
