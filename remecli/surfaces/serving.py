"""Run a surface until it is stopped, then flush the memory runtime (summaries, index watcher).

HTTP surfaces run on uvicorn with a socket bound here (so the real port is known and printed
before the first request); uvicorn handles SIGINT/SIGTERM by finishing in-flight requests. The
stdio MCP server stops at end of input or on SIGTERM/SIGINT. Either way `runner.close()` runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, TypeAlias

from remecli.ops import JobRunner
from remecli.surfaces.auto_sync import start_auto_sync, stop_auto_sync
from remecli.surfaces.daemon import loopback_url, remove_daemon_file, write_daemon_file
from remecli.surfaces.process_end import nothing_left_but_exit

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp, Receive, Scope, Send

# what `signal.signal` returns and takes back: a function, SIG_DFL / SIG_IGN, or None
SignalHandler: TypeAlias = Callable[[int, FrameType | None], object] | int | signal.Handlers | None
STOPPING_KEY = "remecli.stopping"  # in each request's scope: an asyncio.Event, set on stop


class _StopAware:
    """Gives every request the server's `stopping` event (scope[STOPPING_KEY]), so a long answer
    (Studio's stream of a task's events) ends when the server stops instead of holding the
    shutdown for uvicorn's whole grace period."""

    def __init__(self, app: ASGIApp, stopping: asyncio.Event) -> None:
        self.app = app
        self.stopping = stopping

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = {**scope, STOPPING_KEY: self.stopping}
        await self.app(scope, receive, send)


async def _watch_exit(server: uvicorn.Server, stopping: asyncio.Event) -> None:
    """Set `stopping` as soon as uvicorn is asked to exit (its signal handler sets the flag)."""
    while not server.should_exit:
        await asyncio.sleep(0.1)
    stopping.set()


async def start_runner(runner: JobRunner) -> None:
    """Open the runtime; a read-only server runs no writer at all (no Auto Dream, no summary
    retries, no resource watcher): the runner's start without background work."""
    if runner.read_only:  # the index still follows edits: other processes write this memory
        await runner.start(background=False, watch=True)
    else:
        await runner.start()


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket, host: str, path: str = "", *, https: bool = False) -> str:
    """The URL a client uses to reach `sock`."""
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if https else 'http'}://{shown}:{port}{path}"


async def serve_http(
    runner: JobRunner,
    app: ASGIApp,
    host: str,
    port: int,
    announce: Callable[[str], None],
    *,
    tls: tuple[str, str] | None = None,
    announce_in: Path | None = None,
) -> None:
    """Serve `app` on host:port (HTTPS with `tls` = (cert, key) PEM files) until SIGINT/SIGTERM,
    then close the runtime. With `announce_in` (a memory's folder) the server announces itself
    there (`.serve.json`: pid, URL) while it runs, so local clients use it instead of starting
    their own runtime."""
    sock = bind(host, port)
    stopping = asyncio.Event()
    server = _uvicorn_server(_StopAware(app, stopping), tls)
    await start_runner(runner)
    auto_sync = start_auto_sync(runner)
    # uvicorn re-raises the stop signal once it has shut down; absorb that one so the runtime
    # can flush. A signal that arrives before uvicorn installed its own handlers (right after
    # the URL is announced) must still stop the server, so the handler asks it to exit.
    # The handlers are restored before closing: a second signal then forces the exit.
    previous = _absorb_stop_signals(lambda: setattr(server, "should_exit", True))
    watcher = asyncio.create_task(_watch_exit(server, stopping))
    try:
        url = url_of(sock, host, https=tls is not None)
        if announce_in is not None:
            write_daemon_file(announce_in, loopback_url(url, host), read_only=runner.read_only)
        announce(url)
        await server.serve(sockets=[sock])
    finally:
        watcher.cancel()
        if announce_in is not None:
            remove_daemon_file(announce_in)
        sock.close()
        _restore(previous)
        await stop_auto_sync(auto_sync)
        await runner.close()
        nothing_left_but_exit()


def _uvicorn_server(app: ASGIApp, tls: tuple[str, str] | None) -> uvicorn.Server:
    """uvicorn serving `app` (HTTPS with `tls` = (cert, key)), quiet, 10 s to finish requests."""
    import uvicorn

    config = uvicorn.Config(
        app,
        log_level="warning",
        # One HTTP parser whatever else is installed (chromadb brings httptools, which "auto"
        # would pick): the same answers to malformed requests on every install.
        http="h11",
        lifespan="auto",
        timeout_graceful_shutdown=10,
        ssl_certfile=tls[0] if tls else None,
        ssl_keyfile=tls[1] if tls else None,
    )
    return uvicorn.Server(config)


def _absorb_stop_signals(stop: Callable[[], None]) -> dict[int, SignalHandler]:
    if threading.current_thread() is not threading.main_thread():
        return {}

    def absorb(signum: int, frame: FrameType | None) -> None:
        """A stop signal outside uvicorn's own handling: stop (or stay stopped), never die."""
        stop()

    return {sig: signal.signal(sig, absorb) for sig in (signal.SIGTERM, signal.SIGINT)}


def _restore(previous: dict[int, SignalHandler]) -> None:
    for sig, handler in previous.items():
        signal.signal(sig, handler)


async def serve_until_stopped(runner: JobRunner, main: Callable[[], Awaitable[None]]) -> None:
    """Run `main` (e.g. the stdio MCP loop) until it returns or SIGTERM/SIGINT, then close.
    While closing (summaries and the index flush), a second signal forces the exit."""
    await start_runner(runner)
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(main())
    stop_signals = (signal.SIGTERM, signal.SIGINT)
    for signum in stop_signals:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, task.cancel)
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await task
    finally:
        for signum in stop_signals:  # back to the defaults: the next signal stops at once
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signum)
        await runner.close()
        nothing_left_but_exit()


def say(text: str) -> None:
    """A status line on stderr (stdout may be a protocol stream)."""
    print(text, file=sys.stderr, flush=True)
