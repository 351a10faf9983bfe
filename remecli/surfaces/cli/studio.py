"""`remecli studio`: open Studio, the web UI, in the browser (starting the server if needed)."""

from __future__ import annotations

import click

from remecli.surfaces.cli.base import SettingsCommand, WholeNumber
from remecli.surfaces.defaults import DEFAULT_SERVE_PORT


@click.command(cls=SettingsCommand)
@click.option(
    "--port",
    type=WholeNumber(0),
    default=DEFAULT_SERVE_PORT,
    show_default=True,
    help="port of the server to find or start (0: start one on any free port)",
)
@click.option("--no-browser", is_flag=True, help="only print the login link")
@click.option(
    "--token",
    help="the server's bearer token (default: REME_SERVE_TOKEN, else <working_dir>/serve.token)",
)
def studio(port: int, no_browser: bool, token: str | None, setting_args: list[str]) -> int:
    """Open Studio in the browser: see, search, edit and restore your memory.

    Finds `remecli serve` on 127.0.0.1:PORT for this working dir, or serves it here (Ctrl+C
    stops it), then opens a one-time login link (it works once, for two minutes).

    \b
    remecli studio
    remecli studio --no-browser working_dir=~/notes/.reme
    """
    from remecli.surfaces.studio.launch import open_studio

    return open_studio(port, token, setting_args, browser=not no_browser)
