"""The commands that share the memory: `job` (one memory job from the shell), `mcp` and `serve`.

The job commands come from the job registry (imported only when `remecli job` runs).
"""

from __future__ import annotations

import sys

import click

from remecli.surfaces.cli.base import CommandGroup, SettingsCommand, WholeNumber, is_setting
from remecli.surfaces.defaults import DEFAULT_MAX_BODY_BYTES, DEFAULT_SERVE_PORT

DEFAULT_MCP_PORT = 8766
DEFAULT_MAX_RESULT_BYTES = 1_000_000


class JobGroup(CommandGroup):
    """One command per job of the registry, built from its schema when asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        from remecli.surfaces.cli.job import job_names

        return job_names()

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        from remecli.surfaces.cli.job import job_command

        return job_command(cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """`remecli job key=value …` without a job name lists the jobs (settings change none)."""
        if args and all(is_setting(arg) for arg in args):
            args = []
        return super().parse_args(ctx, args)


@click.group(cls=JobGroup, invoke_without_command=True)
@click.pass_context
def job(ctx: click.Context) -> int:
    """Run one memory job and print its result as JSON (alone: the list of jobs).

    \b
    remecli job memory_read --path MEMORY.md
    remecli job memory_search --query "deploy" --max-results 3
    remecli job memory_record --session-id s1 --messages @conversation.json

    A value starting with @ is read from that file (@- for stdin) as JSON.
    """
    if ctx.invoked_subcommand is None:
        from remecli.surfaces.cli.job import job_list

        print(job_list(), file=sys.stderr)
    return 0


def _port(default: int) -> click.Option:
    return click.Option(
        ["--port"], type=WholeNumber(0), default=default, show_default=True, help="port (0: any)"
    )


_HOST = click.option(
    "--host", default="127.0.0.1", show_default=True, help="address to bind (this machine only)"
)
_TOKEN = click.option(
    "--token",
    help="bearer token to require (default: REME_SERVE_TOKEN, else <working_dir>/serve.token, "
    "generated once)",
)
_TLS_CERT = click.option(
    "--tls-cert", type=click.Path(dir_okay=False), metavar="FILE", help="HTTPS: certificate (PEM)"
)
_TLS_KEY = click.option(
    "--tls-key", type=click.Path(dir_okay=False), metavar="FILE", help="HTTPS: private key (PEM)"
)
_INSECURE = click.option(
    "--insecure-http",
    is_flag=True,
    help="allow plain HTTP on a --host other than this machine (e.g. behind a TLS proxy)",
)
_READ_ONLY = click.option("--read-only", is_flag=True, help="refuse jobs that change memory")
_MAX_RESULT = click.option(
    "--max-result-bytes", type=WholeNumber(), default=DEFAULT_MAX_RESULT_BYTES, show_default=True
)


@click.command(cls=SettingsCommand, params=[_port(DEFAULT_MCP_PORT)])
@click.option("--http", is_flag=True, help="streamable HTTP instead of stdio")
@_HOST
@_TOKEN
@_TLS_CERT
@_TLS_KEY
@_INSECURE
@_READ_ONLY
@_MAX_RESULT
def mcp(
    port: int,
    http: bool,
    host: str,
    token: str | None,
    tls_cert: str | None,
    tls_key: str | None,
    insecure_http: bool,
    read_only: bool,
    max_result_bytes: int,
    setting_args: list[str],
) -> int:
    """The memory jobs as an MCP server over stdio (what agents launch), or streamable HTTP.

    \b
    remecli mcp
    remecli mcp --http --port 8766
    """
    from remecli.surfaces.commands import SurfaceOptions, TlsOptions, run

    options = SurfaceOptions(
        host,
        port,
        token,
        read_only,
        max_result_bytes,
        http=http,
        tls=TlsOptions(tls_cert, tls_key, insecure_http),
    )
    return run("mcp", options, setting_args)


@click.command(cls=SettingsCommand, params=[_port(DEFAULT_SERVE_PORT)])
@_HOST
@_TOKEN
@_TLS_CERT
@_TLS_KEY
@_INSECURE
@_READ_ONLY
@click.option(
    "--cors", multiple=True, metavar="ORIGIN", help="allow this browser origin (repeatable)"
)
@click.option(
    "--max-body-bytes", type=WholeNumber(), default=DEFAULT_MAX_BODY_BYTES, show_default=True
)
@_MAX_RESULT
def serve(
    port: int,
    host: str,
    token: str | None,
    tls_cert: str | None,
    tls_key: str | None,
    insecure_http: bool,
    read_only: bool,
    cors: tuple[str, ...],
    max_body_bytes: int,
    max_result_bytes: int,
    setting_args: list[str],
) -> int:
    """HTTP JSON API over the memory jobs: POST /api/<job>, docs at /api/docs (bearer token).

    \b
    remecli serve --port 8765
    remecli serve --read-only --cors http://localhost:3000
    """
    from remecli.surfaces.commands import SurfaceOptions, TlsOptions, run

    options = SurfaceOptions(
        host,
        port,
        token,
        read_only,
        max_result_bytes,
        cors=cors,
        max_body_bytes=max_body_bytes,
        tls=TlsOptions(tls_cert, tls_key, insecure_http),
    )
    return run("serve", options, setting_args)
