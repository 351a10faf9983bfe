"""A stand-in for every host the user did not configure: an HTTP(S) proxy on 127.0.0.1 that
records the first line of each request made through it (``CONNECT api.openai.com:443 …``) and
answers nothing. A remecli process started with ``HTTPS_PROXY``/``HTTP_PROXY`` pointing at it
(``proxy_env``) reaches any default host through it, so ``proxy.requests`` lists whatever
would have left the machine; a host in ``NO_PROXY`` (the scripted fake server) is reached
directly."""

from __future__ import annotations

import socketserver
import threading


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline().decode("latin-1", errors="replace").strip()
        if line:
            self.server.requests.append(line)  # type: ignore[attr-defined]


class RecordingProxy:
    """Start with `start()`, read `requests`, end with `stop()` (or use as a context manager)."""

    def __init__(self) -> None:
        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self.requests: list[str] = []
        self._server.requests = self.requests  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def proxy_env(self) -> dict[str, str]:
        """Environment variables that send every request (but 127.0.0.1's) through it."""
        return {
            "HTTPS_PROXY": self.url,
            "HTTP_PROXY": self.url,
            "https_proxy": self.url,
            "http_proxy": self.url,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }

    def start(self) -> RecordingProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> RecordingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
