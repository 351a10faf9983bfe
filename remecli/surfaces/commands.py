"""`remecli mcp` and `remecli serve`: open the memory, run the surface until it is stopped.

Both take the usual `config=…` and `key=value` arguments (e.g. `working_dir=~/notes/.reme`).
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass
from typing import Any, Literal

from remecli.config.locations import Locations
from remecli.surfaces.defaults import DEFAULT_MAX_BODY_BYTES
from remecli.surfaces.memory_dir import ensure_private_root
from remecli.surfaces.serving import say

Surface = Literal["mcp", "serve"]


@dataclass(frozen=True)
class TlsOptions:
    """HTTPS for a server reachable from other machines (`--tls-cert/--tls-key`), or the
    explicit choice of plain HTTP (`--insecure-http`, e.g. behind a TLS-terminating proxy)."""

    cert: str | None = None
    key: str | None = None
    insecure_http: bool = False

    @property
    def on(self) -> bool:
        return bool(self.cert and self.key)

    def files(self) -> tuple[str, str] | None:
        """(certificate, key) when HTTPS is on."""
        return (self.cert, self.key) if self.cert and self.key else None


@dataclass(frozen=True)
class SurfaceOptions:
    """How `remecli mcp` / `remecli serve` listen and what they allow (the defaults are the
    command line's, `remecli.surfaces.cli.surface_commands`)."""

    host: str
    port: int
    token: str | None  # None: REME_SERVE_TOKEN, else <working_dir>/serve.token
    read_only: bool
    max_result_bytes: int
    http: bool = False  # mcp: streamable HTTP instead of stdio
    cors: tuple[str, ...] = ()  # serve: browser origins allowed
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES  # serve
    tls: TlsOptions = TlsOptions()


def _load(setting_args: list[str]) -> Any:
    from remecli.config import load_settings
    from remecli.config.logs import setup_logging
    from remecli.llm.logs import route_runtime_logs

    settings = load_settings(setting_args)
    root = Locations.from_settings(settings).root
    settings = settings.with_changes({"working_dir": str(root)})  # resolved once
    ensure_private_root(root)  # 0700, before the log file creates it
    setup_logging(settings)
    route_runtime_logs()
    return settings


async def _mcp(options: SurfaceOptions, settings: Any) -> None:
    from remecli.ops import JobRunner
    from remecli.surfaces.access import Gate
    from remecli.surfaces.mcp_server import build_mcp_server
    from remecli.surfaces.serving import serve_http, serve_until_stopped

    runner = JobRunner.from_settings(
        settings, read_only=options.read_only, max_result_bytes=options.max_result_bytes
    )
    gate = Gate(runner)
    server = build_mcp_server(runner, gate)
    if not options.http:
        from remecli.surfaces.stdio_guard import run_stdio

        await serve_until_stopped(runner, lambda: run_stdio(server))
        return
    from remecli.surfaces.auth import Authenticator, BearerAuth, load_token
    from remecli.surfaces.tokens import TokenStore

    root = Locations.from_settings(settings).root
    token = load_token(root, options.token)
    app = BearerAuth(
        server.streamable_http_app(host=options.host),
        Authenticator(token, TokenStore(root)),
        access_log=gate.log,
        surface="mcp",
    )
    await serve_http(
        runner,
        app,
        options.host,
        options.port,
        lambda url: say(f"remecli mcp: {url}/mcp (bearer token from {token.source})"),
        tls=options.tls.files(),
    )


async def _serve(options: SurfaceOptions, settings: Any) -> None:
    from remecli.ops import JobRunner
    from remecli.surfaces.auth import allowed_hosts, load_token
    from remecli.surfaces.daemon import announced_server, served_beside
    from remecli.surfaces.http_api import build_app
    from remecli.surfaces.serving import serve_http

    root = Locations.from_settings(settings).root
    first = announced_server(root)  # serves too: this one is then not announced (see there)
    runner = JobRunner.from_settings(
        settings, read_only=options.read_only, max_result_bytes=options.max_result_bytes
    )
    token = load_token(root, options.token)
    app = build_app(
        runner,
        token,
        cors_origins=list(options.cors),
        max_body_bytes=options.max_body_bytes,
        hosts=allowed_hosts(options.host),
    )
    await serve_http(
        runner,
        app,
        options.host,
        options.port,
        lambda url: say(
            f"remecli serve: {url}/api (docs {url}/api/docs; bearer token from {token.source})"
            + (f"\nremecli serve: {served_beside(first)}" if first is not None else "")
        ),
        tls=options.tls.files(),
        announce_in=root if first is None else None,
    )


def is_loopback(host: str) -> bool:
    """True for an address only this machine can reach (localhost, 127.0.0.0/8, ::1)."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def tls_refusal(command: str, options: SurfaceOptions) -> str | None:
    """Why these HTTP options are refused (one line), or None: a --host other than this machine
    needs HTTPS or an explicit --insecure-http; a certificate needs its key and vice versa."""
    tls = options.tls
    if bool(tls.cert) != bool(tls.key):
        return f"remecli {command}: give both --tls-cert FILE and --tls-key FILE"
    for flag, path in (("--tls-cert", tls.cert), ("--tls-key", tls.key)):
        if path and not os.access(path, os.R_OK):
            return f"remecli {command}: {flag} {path} cannot be read; give a readable PEM file"
    if tls.on or tls.insecure_http or is_loopback(options.host):
        return None
    return (
        f"remecli {command}: --host {options.host} is reachable from other machines, and tokens "
        "would cross the network in clear text: give --tls-cert FILE --tls-key FILE, or "
        "--insecure-http if a TLS proxy is in front"
    )


def run(command: Surface, options: SurfaceOptions, setting_args: list[str]) -> int:
    """Run `remecli mcp` or `remecli serve`; returns the process exit code."""
    from remecli.config import ConfigError

    if not 0 <= options.port <= 65535:
        print(
            f"remecli {command}: --port {options.port} is not a TCP port; pick 0-65535 "
            "(0: any free port)",
            file=sys.stderr,
        )
        return 2
    if command == "serve" or options.http:
        refused = tls_refusal(command, options)
        if refused:
            print(refused, file=sys.stderr)
            return 2
        if not is_loopback(options.host):
            say(
                f"remecli {command}: listening on {options.host}, not only this machine: anyone "
                "who can reach it and has a token can use your memory"
            )
    try:
        settings = _load(setting_args)
    except ConfigError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 2
    try:
        asyncio.run((_mcp if command == "mcp" else _serve)(options, settings))
    except OSError as exc:
        print(
            f"remecli {command}: {exc} (is the port in use? pick one with --port)", file=sys.stderr
        )
        return 1
    except ValueError as exc:
        print(f"remecli {command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second Ctrl+C while the memory work was being finished
        say(f"remecli {command}: stopped at once; unfinished memory work resumes at the next start")
        return 130
    return 0
