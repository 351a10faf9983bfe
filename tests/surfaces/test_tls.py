"""`remecli serve` on an address other machines can reach needs HTTPS (`--tls-cert/--tls-key`)
or an explicit `--insecure-http`; with a certificate it answers over HTTPS (real process)."""

from __future__ import annotations

import os
import re
import shutil
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.surfaces.helpers import surface_settings

NO_LLM = "http://127.0.0.1:9/v1"


def serve(working_dir: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "remecli", "serve", "--port", "0", *args]
        + surface_settings(working_dir, NO_LLM),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )


def announced_port(process: subprocess.Popen[str], scheme: str) -> int:
    """The port from the server's `scheme://0.0.0.0:PORT` line (deadline 60 s)."""
    found: list[int] = []
    seen: list[str] = []

    def pump() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            seen.append(line)
            match = re.search(rf"{scheme}://0\.0\.0\.0:(\d+)", line)
            if match:
                found.append(int(match.group(1)))

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + 60
    while not found:
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError("server did not start:\n" + "".join(seen))
        time.sleep(0.05)
    return found[0]


def test_a_public_host_needs_tls_or_an_explicit_choice(tmp_path: Path) -> None:
    refused = serve(tmp_path / ".reme", "--host", "0.0.0.0")
    try:
        assert refused.wait(60) == 2
    finally:
        refused.kill()
    assert refused.stderr is not None
    message = refused.stderr.read()
    assert "--tls-cert" in message and "--insecure-http" in message
    assert message.strip().count("\n") == 0

    plain = serve(tmp_path / ".reme", "--host", "0.0.0.0", "--insecure-http")
    try:
        port = announced_port(plain, "http")
        assert httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=30).status_code == 200
    finally:
        plain.terminate()
        plain.wait(60)


def test_serve_over_https(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    process = serve(
        tmp_path / ".reme", "--host", "0.0.0.0", "--tls-cert", str(cert), "--tls-key", str(key)
    )
    try:
        port = announced_port(process, "https")
        trust = ssl.create_default_context(cafile=str(cert))
        health = httpx.get(f"https://127.0.0.1:{port}/api/health", verify=trust, timeout=30)
        assert health.status_code == 200
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=10)
    finally:
        process.terminate()
        process.wait(60)
