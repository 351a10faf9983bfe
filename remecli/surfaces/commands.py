"""`remecli mcp` and `remecli serve`: parse the options, open the memory, run the surface.

Both take the usual `config=…` and `key=value` arguments (e.g. `working_dir=~/notes/.reme`).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from typing import Any

from remecli.config.locations import Locations
from remecli.surfaces.limits import DEFAULT_MAX_BODY_BYTES
from remecli.surfaces.serving import say

_SETTING = re.compile(r"^[A-Za-z_][\w.]*=")
DEFAULT_SERVE_PORT = 8765
DEFAULT_MCP_PORT = 8766


def _parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"remecli {command}",
        description="MCP server over stdio (default) or streamable HTTP"
        if command == "mcp"
        else "HTTP JSON API over the memory jobs",
        epilog="Settings: config=NAME[,NAME…] and key=value, as for remecli itself.",
    )
    if command == "mcp":
        parser.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    default_port = DEFAULT_MCP_PORT if command == "mcp" else DEFAULT_SERVE_PORT
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=default_port, help=f"port (default {default_port})"
    )
    parser.add_argument(
        "--token",
        help="bearer token to require (default: REME_SERVE_TOKEN, "
        "else <working_dir>/serve.token, generated once)",
    )
    parser.add_argument("--read-only", action="store_true", help="refuse jobs that change memory")
    if command == "serve":
        parser.add_argument(
            "--cors",
            action="append",
            metavar="ORIGIN",
            default=[],
            help="allow this browser origin (repeatable; default: none)",
        )
        parser.add_argument("--max-body-bytes", type=int, default=DEFAULT_MAX_BODY_BYTES)
    parser.add_argument("--max-result-bytes", type=int, default=1_000_000)
    return parser


def split_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """(options, key=value settings)."""
    settings = [a for a in argv if _SETTING.match(a) and not a.startswith("-")]
    return [a for a in argv if a not in settings], settings


def _load(setting_args: list[str]) -> Any:
    from remecli.config import load_settings
    from remecli.config.logs import route_agentscope_logs, setup_logging

    settings = load_settings(setting_args)
    root = Locations.from_settings(settings).root
    settings = settings.with_changes({"working_dir": str(root)})  # resolved once
    setup_logging(settings)
    route_agentscope_logs()
    return settings


async def _mcp(options: argparse.Namespace, settings: Any) -> None:
    from remecli.ops import JobRunner
    from remecli.surfaces.mcp_server import build_mcp_server
    from remecli.surfaces.serving import serve_http, serve_until_stopped

    runner = JobRunner.from_settings(
        settings, read_only=options.read_only, max_result_bytes=options.max_result_bytes
    )
    server = build_mcp_server(runner)
    if not options.http:
        await serve_until_stopped(runner, server.run_stdio_async)
        return
    from remecli.surfaces.auth import BearerAuth, load_token

    token = load_token(Locations.from_settings(settings).root, options.token)
    app = BearerAuth(server.streamable_http_app(host=options.host), token)
    await serve_http(
        runner,
        app,
        options.host,
        options.port,
        lambda url: say(f"remecli mcp: {url}/mcp (bearer token from {token.source})"),
    )


async def _serve(options: argparse.Namespace, settings: Any) -> None:
    from remecli.ops import JobRunner
    from remecli.surfaces.auth import load_token
    from remecli.surfaces.http_api import build_app
    from remecli.surfaces.serving import serve_http

    runner = JobRunner.from_settings(
        settings, read_only=options.read_only, max_result_bytes=options.max_result_bytes
    )
    token = load_token(Locations.from_settings(settings).root, options.token)
    app = build_app(runner, token, cors_origins=options.cors, max_body_bytes=options.max_body_bytes)
    await serve_http(
        runner,
        app,
        options.host,
        options.port,
        lambda url: say(
            f"remecli serve: {url}/api (docs {url}/api/docs; bearer token from {token.source})"
        ),
    )


def run(command: str, argv: list[str]) -> int:
    """Run `remecli mcp` or `remecli serve`; returns the process exit code."""
    from remecli.config import ConfigError

    option_args, setting_args = split_args(argv)
    options = _parser(command).parse_args(option_args)
    if options.host not in ("127.0.0.1", "localhost", "::1") and (
        command == "serve" or options.http
    ):
        say(
            f"remecli {command}: listening on {options.host}, not only this machine: anyone who "
            "can reach it and has the token can use your memory"
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


def run_command(command: str, argv: list[str]) -> int:
    """Dispatch `remecli job | mcp | serve`."""
    if command == "job":
        from remecli.surfaces.cli.job import run as run_job

        return run_job(argv)
    return run(command, argv)
